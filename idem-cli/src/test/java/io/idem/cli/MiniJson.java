package io.idem.cli;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict parser for the JSON idem writes (objects, arrays, numbers, plain keys and plain string
 * values): tests only.
 */
final class MiniJson {
  private final String s;
  private int i;

  private MiniJson(String s) {
    this.s = s;
  }

  /** Parses one value that must span the whole text (surrounding whitespace allowed). */
  static Object parse(String text) {
    MiniJson p = new MiniJson(text.strip());
    Object v = p.value();
    if (p.i != p.s.length()) {
      throw p.error("trailing text");
    }
    return v;
  }

  private Object value() {
    char c = peek();
    if (c == '{') {
      return object();
    }
    if (c == '[') {
      return array();
    }
    if (c == '"') {
      return key(); // idem writes only plain words as strings
    }
    return number();
  }

  private Map<String, Object> object() {
    expect('{');
    Map<String, Object> map = new LinkedHashMap<>();
    if (peek() == '}') {
      i++;
      return map;
    }
    while (true) {
      String key = key();
      expect(':');
      if (map.put(key, value()) != null) {
        throw error("duplicate key " + key);
      }
      if (peek() == ',') {
        i++;
        continue;
      }
      expect('}');
      return map;
    }
  }

  private List<Object> array() {
    expect('[');
    List<Object> list = new ArrayList<>();
    if (peek() == ']') {
      i++;
      return list;
    }
    while (true) {
      list.add(value());
      if (peek() == ',') {
        i++;
        continue;
      }
      expect(']');
      return list;
    }
  }

  private String key() {
    expect('"');
    int end = s.indexOf('"', i);
    if (end < 0) {
      throw error("unterminated key");
    }
    String key = s.substring(i, end);
    if (key.contains("\\")) {
      throw error("escapes are not expected");
    }
    i = end + 1;
    return key;
  }

  private BigDecimal number() {
    int start = i;
    while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
      i++;
    }
    String text = s.substring(start, i);
    if (!text.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) {
      throw error("not a JSON number: '" + text + "'");
    }
    return new BigDecimal(text);
  }

  private char peek() {
    if (i >= s.length()) {
      throw error("unexpected end");
    }
    return s.charAt(i);
  }

  private void expect(char c) {
    if (peek() != c) {
      throw error("expected '" + c + "'");
    }
    i++;
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException(what + " at " + i + " in " + s);
  }
}
