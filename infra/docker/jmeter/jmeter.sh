#!/usr/bin/env bash
# `jmeter` in the bankbench JMeter image: JMeter as the Maven plugin lays it out (it has no
# bin/jmeter launcher), with the JVM options HEAP and JVM_ARGS, as bin/jmeter reads them.
# shellcheck disable=SC2086 # HEAP and JVM_ARGS are lists of options
exec java ${HEAP:-} ${JVM_ARGS:-} -jar /opt/jmeter/bin/ApacheJMeter-*.jar "$@"
