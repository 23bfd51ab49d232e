/**
 * The wire protocol: the RESP2/RESP3 request decoder with its limits, and the reply encoder. Only
 * this package and the connection handler know the bytes of RESP.
 */
@NullMarked
package io.idem.server.resp;

import org.jspecify.annotations.NullMarked;
