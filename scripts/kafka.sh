# A one-node Kafka (KRaft, broker and controller in one process) from the Maven artifacts the tests
# use: no Kafka download. Source it; it defines functions and runs nothing.
#   kafka_start DIR PORT   formats DIR (once) and starts the broker on 127.0.0.1:PORT in the
#                          background (its controller on PORT+1); waits until it takes
#                          connections. Sets kafka_pid. Log: DIR/broker.log
#   kafka_stop             stops the broker kafka_start started
# Needs JAVA_HOME to a JDK 25 (scripts/jdk.sh) and the repository's ./mvnw.

kafka_classpath() { # the kafka_2.13 broker and its dependencies, resolved by Maven (offline first)
  local out=idem-server/target/kafka-broker.classpath
  if [ ! -s "$out" ]; then
    # With -am and compile, idem-core comes from this build (target/classes), not from a local
    # repository it may never have been installed into (a fresh clone).
    local resolve=(./mvnw -B -q -pl idem-server -am -Dmaven.test.skip=true
      -Dspotless.check.skip=true compile dependency:build-classpath
      -Dmdep.outputFile="$PWD/$out" -Dmdep.includeScope=test)
    "${resolve[@]}" -o >&2 || "${resolve[@]}" >&2 || return 1
  fi
  cat "$out"
}

kafka_start() {
  local dir=$1 port=$2 cp
  cp=$(kafka_classpath) || { echo "kafka: cannot resolve the broker's classpath" >&2; return 1; }
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  # Kafka logs through SLF4J; Logback is on the classpath: warnings only, to the log file.
  cat >"$dir/logback.xml" <<'EOF'
<configuration>
  <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{20} - %msg%n</pattern></encoder>
  </appender>
  <root level="WARN"><appender-ref ref="OUT"/></root>
</configuration>
EOF
  # One node: the internal topics take one replica. Groups may time a member out after 500 ms,
  # so a cluster can set cluster-node-timeout below Kafka's default floor of 6 s.
  cat >"$dir/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$((port + 1))
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$((port + 1))
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/logs
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
group.min.session.timeout.ms=500
EOF
  local java=("$JAVA_HOME/bin/java" -Xmx512m -Dlogback.configurationFile="$dir/logback.xml" -cp "$cp")
  if [ ! -f "$dir/logs/meta.properties" ]; then
    local id
    id=$("${java[@]}" kafka.tools.StorageTool random-uuid 2>>"$dir/broker.log" | tail -n 1)
    "${java[@]}" kafka.tools.StorageTool format -t "$id" -c "$dir/server.properties" \
      >>"$dir/broker.log" 2>&1 || { echo "kafka: format failed, see $dir/broker.log" >&2; return 1; }
  fi
  "${java[@]}" kafka.Kafka "$dir/server.properties" >>"$dir/broker.log" 2>&1 &
  kafka_pid=$!
  local i
  for i in $(seq 1 120); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "kafka: broker on 127.0.0.1:$port (pid $kafka_pid, data $dir)" >&2
      return 0
    fi
    kill -0 "$kafka_pid" 2>/dev/null || break
    sleep 0.5
  done
  echo "kafka: the broker did not start; see $dir/broker.log" >&2
  return 1
}

kafka_stop() {
  if [ -n "${kafka_pid:-}" ]; then
    kill "$kafka_pid" 2>/dev/null || true
    wait "$kafka_pid" 2>/dev/null || true
    kafka_pid=
  fi
}
