# Shared by the example scripts (source it; it defines a function and runs nothing).
#   example_run CLASS ARGS...   builds idem-client's test classes (offline, then online), resolves
#                               their classpath, and runs io.idem.client.example.CLASS with ARGS

example_run() {
  local class=$1
  shift
  . scripts/jdk.sh
  idem_find_jdk25
  export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
  local build=(./mvnw -B -q -pl idem-core,idem-server,idem-client -am test-compile
    -Dspotless.check.skip=true)
  "${build[@]}" -o >&2 || "${build[@]}" >&2
  local cp_file=idem-client/target/example.classpath
  local resolve=(./mvnw -B -q -pl idem-client dependency:build-classpath
    -Dmdep.outputFile="$PWD/$cp_file" -Dmdep.includeScope=test)
  "${resolve[@]}" -o >&2 || "${resolve[@]}" >&2
  exec "$JAVA_HOME/bin/java" \
    -cp "idem-client/target/test-classes:idem-client/target/classes:$(cat "$cp_file")" \
    "io.idem.client.example.$class" "$@"
}
