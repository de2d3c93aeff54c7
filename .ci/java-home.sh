# Sourced by .ci/run and ./graph: sets JAVA_HOME to a JDK >= 21, preferring the newest one found.
# Keeps a JAVA_HOME that already points at a JDK >= 21.
java_major() { "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | cut -d. -f1; }

if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/javac" ] && [ "$(java_major "$JAVA_HOME")" -ge 21 ] 2>/dev/null; then
  :
else
  best="" best_major=0
  for candidate in /usr/lib/jvm/* /opt/java/* /opt/jdk* "$HOME"/.sdkman/candidates/java/* \
                   "$(dirname "$(dirname "$(readlink -f "$(command -v javac 2>/dev/null || echo /nonexistent)")")")"; do
    [ -x "$candidate/bin/javac" ] || continue
    major=$(java_major "$candidate")
    if [ -n "$major" ] && [ "$major" -ge 21 ] && [ "$major" -gt "$best_major" ]; then
      best="$candidate" best_major="$major"
    fi
  done
  if [ -z "$best" ]; then
    echo "No JDK 21 or newer found (looked in /usr/lib/jvm, /opt, ~/.sdkman and PATH). Install one and set JAVA_HOME." >&2
    exit 1
  fi
  JAVA_HOME="$best"
fi
export JAVA_HOME
