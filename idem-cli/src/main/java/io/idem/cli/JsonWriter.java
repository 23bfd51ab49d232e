package io.idem.cli;

import static io.idem.core.Checks.checkArgument;

import java.util.regex.Pattern;

/**
 * Just enough JSON for {@code idem size --json}: objects, arrays, numeric values and plain keys. No
 * string values, so nothing ever needs escaping; keys are checked instead.
 */
final class JsonWriter {
  private static final Pattern PLAIN_KEY = Pattern.compile("[A-Za-z0-9_-]+");

  private final StringBuilder json = new StringBuilder();
  private boolean needsComma;

  JsonWriter beginObject() {
    separate();
    json.append('{');
    needsComma = false;
    return this;
  }

  JsonWriter endObject() {
    json.append('}');
    needsComma = true;
    return this;
  }

  JsonWriter beginArray() {
    separate();
    json.append('[');
    needsComma = false;
    return this;
  }

  JsonWriter endArray() {
    json.append(']');
    needsComma = true;
    return this;
  }

  JsonWriter key(String key) {
    checkArgument(PLAIN_KEY.matcher(key).matches(), "key (%s) must be plain", key);
    separate();
    json.append('"').append(key).append("\":");
    needsComma = false;
    return this;
  }

  JsonWriter value(long value) {
    separate();
    json.append(value);
    needsComma = true;
    return this;
  }

  JsonWriter value(double value) {
    checkArgument(Double.isFinite(value), "value (%s) must be finite to be JSON", value);
    separate();
    // Double.toString gives "1.0E-4", a valid JSON number.
    json.append(value);
    needsComma = true;
    return this;
  }

  /** A string value made of what a key may hold, so that it needs no escaping. */
  JsonWriter value(String word) {
    checkArgument(PLAIN_KEY.matcher(word).matches(), "value (%s) must be plain", word);
    separate();
    json.append('"').append(word).append('"');
    needsComma = true;
    return this;
  }

  JsonWriter field(String key, String word) {
    return key(key).value(word);
  }

  JsonWriter field(String key, long value) {
    return key(key).value(value);
  }

  JsonWriter field(String key, double value) {
    return key(key).value(value);
  }

  private void separate() {
    if (needsComma) {
      json.append(',');
    }
  }

  @Override
  public String toString() {
    return json.toString();
  }
}
