package io.idem.server.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.server.reply.Replies;
import io.idem.server.reply.Reply;
import org.junit.jupiter.api.Test;

/** The argument notation behind COMMAND DOCS, turned into Redis 7's argument maps. */
class SyntaxTest {

  private static String args(String syntax) {
    return Replies.show(Syntax.arguments(syntax));
  }

  @Test
  void plainArguments_typedByNameOrSuffix() {
    assertThat(args("key seconds:integer message"))
        .isEqualTo(
            "[{\"name\"=\"key\", \"type\"=\"key\", \"display_text\"=\"key\"},"
                + " {\"name\"=\"seconds\", \"type\"=\"integer\", \"display_text\"=\"seconds\"},"
                + " {\"name\"=\"message\", \"type\"=\"string\", \"display_text\"=\"message\"}]");
  }

  @Test
  void optionalAlternatives_areAOneof() {
    assertThat(args("[NX | XX]"))
        .isEqualTo(
            "[{\"name\"=\"nx-xx\", \"type\"=\"oneof\", \"flags\"=<optional>,"
                + " \"arguments\"=[{\"name\"=\"nx\", \"type\"=\"pure-token\","
                + " \"display_text\"=\"nx\", \"token\"=\"NX\"}, {\"name\"=\"xx\","
                + " \"type\"=\"pure-token\", \"display_text\"=\"xx\", \"token\"=\"XX\"}]}]");
  }

  @Test
  void tokenWithOneValue_isTheValueWithAToken() {
    assertThat(args("[MATCH pattern]"))
        .isEqualTo(
            "[{\"name\"=\"pattern\", \"type\"=\"pattern\", \"display_text\"=\"pattern\","
                + " \"token\"=\"MATCH\", \"flags\"=<optional>}]");
  }

  @Test
  void tokenWithSeveralValues_isABlock() {
    assertThat(args("[AUTH username password]"))
        .isEqualTo(
            "[{\"name\"=\"auth\", \"type\"=\"block\", \"token\"=\"AUTH\", \"flags\"=<optional>,"
                + " \"arguments\"=[{\"name\"=\"username\", \"type\"=\"string\","
                + " \"display_text\"=\"username\"}, {\"name\"=\"password\", \"type\"=\"string\","
                + " \"display_text\"=\"password\"}]}]");
  }

  @Test
  void ellipsis_marksMultiple() {
    assertThat(args("key..."))
        .isEqualTo(
            "[{\"name\"=\"key\", \"type\"=\"key\", \"display_text\"=\"key\","
                + " \"flags\"=<multiple>}]");
    assertThat(args("[ID id:integer...]"))
        .isEqualTo(
            "[{\"name\"=\"id\", \"type\"=\"integer\", \"display_text\"=\"id\", \"token\"=\"ID\","
                + " \"flags\"=<optional, multiple>}]");
  }

  @Test
  void emptySyntax_hasNoArguments() {
    assertThat(Syntax.arguments("")).isEqualTo(Reply.EMPTY_ARRAY);
  }

  @Test
  void display_dropsTheTypes() {
    assertThat(Syntax.display("key seconds:integer [COUNT count:integer]"))
        .isEqualTo("key seconds [COUNT count]");
  }

  @Test
  void badSyntax_failsWhenRegistered() {
    for (String bad : new String[] {"[key", "key]", "( )", "...", "[a | ]"}) {
      assertThatThrownBy(() -> Documented.doc(bad, call -> Reply.OK))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }
}
