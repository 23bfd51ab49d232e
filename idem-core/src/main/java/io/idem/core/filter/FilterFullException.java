package io.idem.core.filter;

/** Thrown when a filter can take no more items: it does not scale, or reached its growth limit. */
public final class FilterFullException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public FilterFullException(String message) {
    super(message);
  }
}
