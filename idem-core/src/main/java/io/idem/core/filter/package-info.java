/** Membership filters: Bloom, scalable Bloom, cuckoo, and the no-false-positive RecentSet. */
@NullMarked
package io.idem.core.filter;

import org.jspecify.annotations.NullMarked;
