package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.server.net.IdemServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TLS listener, with the self-signed test certificate in src/test/resources/tls (made by
 * openssl for localhost and 127.0.0.1, valid for a century; it protects nothing).
 */
class TlsTest {

  @TempDir static Path dir;
  static Path cert;
  static Path key;
  static ServerHarness server;

  @BeforeAll
  static void start() throws Exception {
    cert = copy("server.crt");
    key = copy("server.key");
    server =
        new ServerHarness(
            dir.resolve("data"),
            "tls-port",
            Integer.toString(freePort()),
            "tls-cert-file",
            cert.toString(),
            "tls-key-file",
            key.toString());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static Path copy(String name) throws IOException {
    try (InputStream in = TlsTest.class.getResourceAsStream("/tls/" + name)) {
      Path p = dir.resolve(name);
      Files.copy(in, p);
      return p;
    }
  }

  /** tls-port 0 means no TLS listener (as in Redis), so the test picks a free port itself. */
  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** A TLS socket that trusts the test certificate only. */
  private static SSLSocket tlsSocket() throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    try (InputStream in = Files.newInputStream(cert)) {
      trust.setCertificateEntry(
          "idem-test", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, tmf.getTrustManagers(), null);
    SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket();
    s.connect(new InetSocketAddress("127.0.0.1", server.server.tlsPort()), 5000);
    s.startHandshake();
    return s;
  }

  @Test
  void commandsOverTls() throws Exception {
    try (RespClient c = new RespClient(tlsSocket())) {
      assertThat(c.call("PING")).isEqualTo("PONG");
      assertThat(c.call("BF.ADD", "tls:bf", "a")).isEqualTo(1L);
      assertThat(c.call("BF.EXISTS", "tls:bf", "a")).isEqualTo(1L);
    }
    // The plain port serves the same keyspace.
    try (RespClient c = new RespClient(server.port())) {
      assertThat(c.call("BF.EXISTS", "tls:bf", "a")).isEqualTo(1L);
    }
  }

  @Test
  void redisCliOverTls() throws Exception {
    Process p =
        new ProcessBuilder(
                "redis-cli",
                "--tls",
                "--cacert",
                cert.toString(),
                "-h",
                "127.0.0.1",
                "-p",
                Integer.toString(server.server.tlsPort()),
                "ECHO",
                "over tls")
            .redirectErrorStream(true)
            .start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(out).isEqualTo("over tls\n");
  }

  @Test
  void plainTextOnTheTlsPortIsClosedNotAnswered() throws Exception {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", server.server.tlsPort()), 5000);
      s.setSoTimeout(30_000);
      s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      byte[] got = s.getInputStream().readAllBytes();
      assertThat(new String(got, StandardCharsets.US_ASCII)).doesNotContain("PONG");
    }
    // The server goes on.
    try (RespClient c = new RespClient(tlsSocket())) {
      assertThat(c.call("PING")).isEqualTo("PONG");
    }
  }

  @Test
  void anUnreadableKeyIsAClearStartError() throws Exception {
    Path bad = dir.resolve("bad.key");
    Files.writeString(bad, "not a key\n");
    assertThatThrownBy(
            () ->
                new ServerHarness(
                    dir.resolve("data2"),
                    "tls-port",
                    Integer.toString(freePort()),
                    "tls-cert-file",
                    cert.toString(),
                    "tls-key-file",
                    bad.toString()))
        .isInstanceOf(IdemServer.StartException.class)
        .hasMessageStartingWith("cannot load TLS certificate " + cert + " and key " + bad + ": ");
  }
}
