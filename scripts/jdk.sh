# Sourced by ./idem and .ci/run: finds a JDK 25 or newer and exports JAVA_HOME to it.
# Order: $JAVA_HOME, then the JDKs installed beside the default `java` (e.g. /usr/lib/jvm/*).

idem_java_major() { # prints the feature version of the java binary $1, or nothing
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p' | head -n 1
}

idem_is_jdk25() { # is $1 a JDK home (with javac) of version 25 or newer?
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 1
  local v
  v=$(idem_java_major "$1/bin/java")
  [ -n "$v" ] && [ "${v%%.*}" -ge 25 ] 2>/dev/null
}

idem_find_jdk25() {
  if [ -n "${JAVA_HOME:-}" ] && idem_is_jdk25 "$JAVA_HOME"; then
    return 0
  fi
  local roots=() default
  if default=$(command -v java 2>/dev/null); then
    default=$(readlink -f "$default")
    roots+=("$(dirname "$(dirname "$(dirname "$default")")")")
  fi
  local root home
  for root in /usr/lib/jvm /usr/local/lib/jvm /opt/java /opt; do
    case " ${roots[*]} " in *" $root "*) ;; *) roots+=("$root") ;; esac
  done
  for root in "${roots[@]}"; do
    [ -d "$root" ] || continue
    for home in $(ls -d "$root"/*/ 2>/dev/null | sort -rV); do
      home=${home%/}
      if idem_is_jdk25 "$home"; then
        export JAVA_HOME="$home"
        return 0
      fi
    done
  done
  echo "idem: no JDK 25 found. Idem needs Java 25 or newer: set JAVA_HOME to a JDK 25," >&2
  echo "idem: or install one beside the default java (looked in: ${roots[*]})." >&2
  return 1
}
