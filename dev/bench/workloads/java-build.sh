# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# A Java build: 120 generated classes in 6 packages compiled by javac, packed
# by jar, then run (the JVM maps its modules image and the jar, starts its
# threads, and the program writes and reads files with java.nio).
set -e
for p in 0 1 2 3 4 5; do
  mkdir -p src/app/p$p
  for c in $(seq 0 19); do
    cat > src/app/p$p/C$c.java <<JAVA
package app.p$p;
import java.util.*;
public class C$c {
  public static int work(int n) { List<Integer> l = new ArrayList<>(); for (int i = 0; i < n; i++) l.add(i * $c); return l.stream().mapToInt(Integer::intValue).sum(); }
}
JAVA
  done
done
cat > src/app/Main.java <<'JAVA'
package app;
import java.nio.file.*;
import java.util.*;
public class Main {
  public static void main(String[] a) throws Exception {
    Path d = Files.createDirectories(Paths.get("out-data"));
    for (int i = 0; i < 200; i++) Files.writeString(d.resolve("f" + i + ".txt"), "line " + app.p0.C1.work(i) + "\n");
    long n = 0; try (var s = Files.walk(d)) { n = s.filter(Files::isRegularFile).count(); }
    for (int i = 0; i < 200; i += 2) Files.move(d.resolve("f" + i + ".txt"), d.resolve("g" + i + ".txt"), StandardCopyOption.ATOMIC_MOVE);
    try (var s = Files.newDirectoryStream(d, "g*")) { for (Path p : s) Files.readAllLines(p); }
    Files.writeString(Paths.get("count.txt"), Long.toString(n));
  }
}
JAVA
find src -name '*.java' > sources.txt
javac -d classes @sources.txt
jar cf app.jar -C classes .
java -cp app.jar app.Main
test "$(cat count.txt)" = 200
