# Shared by the example scripts (source it; it defines a function and runs nothing).
#   example_run CLASS ARGS...   builds idem-client's test classes (offline, then online), resolves
#                               their classpath, and runs io.idem.client.example.CLASS with ARGS

example_run() {
  local class=$1
  shift
  . scripts/jdk.sh
  idem_find_jdk25
  export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
  # One build that compiles and resolves: idem-core and idem-server then come from this build,
  # not from a local repository they may never have been installed into (a fresh clone).
  local cp_file=idem-client/target/example.classpath
  local build=(./mvnw -B -q -pl idem-client -am test-compile dependency:build-classpath
    -Dspotless.check.skip=true -Dmdep.outputFile="$PWD/$cp_file" -Dmdep.includeScope=test)
  "${build[@]}" -o >&2 || "${build[@]}" >&2
  exec "$JAVA_HOME/bin/java" \
    -cp "idem-client/target/test-classes:idem-client/target/classes:$(cat "$cp_file")" \
    "io.idem.client.example.$class" "$@"
}
