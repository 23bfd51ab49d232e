package io.idem.server.resp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class InlineSplitterTest {

  @Test
  void split_blanksAndWords() {
    assertThat(split("  SET\tk \u000b v  ")).containsExactly("SET", "k", "v");
    assertThat(split("")).isEmpty();
    assertThat(split(" \t\r\u000b\u000c")).isEmpty();
  }

  @Test
  void split_unquotedWordEndsOnlyAtSpaceTabCrLf() {
    assertThat(split("a\u000bb\u000cc d\re\nf")).containsExactly("a\u000bb\u000cc", "d", "e", "f");
  }

  @Test
  void split_doubleQuotes_escapes() {
    assertThat(split("\"a b\" \"\\x41\\x7e\\xZZ\\x4\" \"\\n\\r\\t\\b\\a\\\\\\\"\\z\""))
        .containsExactly("a b", "A~xZZx4", "\n\r\t\b\u0007\\\"z");
  }

  @Test
  void split_singleQuotes_onlyQuoteEscaped() {
    assertThat(split("'a\\'b' 'c\\nd' 'e\"f'")).containsExactly("a'b", "c\\nd", "e\"f");
  }

  @Test
  void split_quoteInsideWord_continuesTheWord() {
    assertThat(split("a\"b c\" 'x'y")).isNull(); // 'x' is glued to y
    assertThat(split("a\"b c\" d'e f'")).containsExactly("ab c", "de f");
  }

  @Test
  void split_emptyQuotedWords() {
    assertThat(split("\"\" ''")).containsExactly("", "");
  }

  @Test
  void split_unbalanced_null() {
    assertThat(split("\"abc")).isNull();
    assertThat(split("'abc")).isNull();
    assertThat(split("\"abc\\\"")).isNull();
    assertThat(split("\"abc\"def")).isNull();
    assertThat(split("'abc'def")).isNull();
    assertThat(split("\"ab\\")).isNull();
  }

  @Test
  void split_closingQuoteThenAnyBlank_accepted() {
    assertThat(split("\"a\"\u000bb")).containsExactly("a", "b");
  }

  @Test
  void split_nulAndHighBytes_ordinary() {
    assertThat(split("a\0b \u00ff")).containsExactly("a\0b", "\u00ff");
  }

  private static List<String> split(String line) {
    byte[][] words = InlineSplitter.split(line.getBytes(StandardCharsets.ISO_8859_1));
    if (words == null) {
      return null;
    }
    return Arrays.stream(words).map(w -> new String(w, StandardCharsets.ISO_8859_1)).toList();
  }
}
