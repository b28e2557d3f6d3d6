# Sourced by the project's scripts: points JAVA_HOME at a JDK 25 when it is unset or older.
java_major() { "$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1; }
if [ -z "${JAVA_HOME:-}" ] || [ ! -x "$JAVA_HOME/bin/java" ] || [ "$(java_major "$JAVA_HOME")" -lt 25 ] 2>/dev/null; then
  for candidate in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/java-25-openjdk-amd64 /usr/lib/jvm/*25* /opt/java/openjdk; do
    if [ -x "$candidate/bin/java" ] && [ "$(java_major "$candidate")" -ge 25 ] 2>/dev/null; then
      export JAVA_HOME="$candidate"
      break
    fi
  done
fi
if [ -z "${JAVA_HOME:-}" ] || [ "$(java_major "$JAVA_HOME")" -lt 25 ] 2>/dev/null; then
  echo "Symbiont needs JDK 25: set JAVA_HOME to one (found: ${JAVA_HOME:-none})" >&2
  exit 1
fi
export PATH="$JAVA_HOME/bin:$PATH"
