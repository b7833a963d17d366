#!/usr/bin/env bash
# Build the one-folder bundle with PyInstaller and smoke-test it where no Python environment of ours exists.
#
#   packaging/check_bundle.sh            (slow: a few minutes; not part of the test run)
#
# Builds build/dist/pressroom/ from packaging/pressroom.spec, copies it to a fresh temporary folder and runs
# it there with an empty environment (no PATH to our venv, no PYTHONPATH, a new HOME):
#   1. `pressroom html2pdf` converts the sample invoice (the PDF is read back: page size and text), `merge`
#      merges it twice over, `script` runs a Puppeteer-style script on the bundled driver's Node;
#   2. `pressroom` opens the window (offscreen) and reports it shown; the start time is measured;
#   3. `pressroom install-desktop` writes a launcher that starts the bundle, and uninstall-desktop removes it.
# Prints the bundle's size and start times. Needs what packaging/bootstrap.sh sets up, plus a browser.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf 'check_bundle: %s\n' "$*" >&2; }
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'; }
die() { say "FAILED: $*"; exit 1; }

packaging/bootstrap.sh run --version >/dev/null  # the venv, Pressroom and a browser
py=.venv/bin/python
"$py" -m pip install --disable-pip-version-check -q "pyinstaller>=6.10" || die "pip could not install PyInstaller"

say "building the bundle"
started=$EPOCHREALTIME
"$py" -m PyInstaller packaging/pressroom.spec --distpath build/dist --workpath build/work --noconfirm --log-level WARN
say "built in $(since "$started") s"

scratch="$(mktemp -d /tmp/pressroom-bundle-check.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT
cp -a build/dist/pressroom "$scratch/pressroom"  # elsewhere: nothing may depend on this checkout
mkdir -p "$scratch/home" "$scratch/work"
cp resources/samples/invoice.html "$scratch/work/"
browser="$("$py" -c 'from app.engines.local.discovery import find_browsers; print(find_browsers(None)[0].executable or "")')"
clean_env=(env -i "HOME=$scratch/home" "PATH=/usr/bin:/bin" "LANG=C.UTF-8" "XDG_DATA_HOME=$scratch/home/share"
           "PRESSROOM_CONFIG_DIR=$scratch/home/config")
[ -n "$browser" ] && clean_env+=("PRESSROOM_CHROMIUM=$browser")  # where this machine's browser is
bundle="$scratch/pressroom/pressroom"

say "1. converting the sample invoice with the bundle"
(cd "$scratch/work" && "${clean_env[@]}" "$bundle" html2pdf invoice.html -o invoice.pdf --json) > "$scratch/convert.json" ||
  die "the bundle could not convert the invoice"
head -c 5 "$scratch/work/invoice.pdf" | grep -q '%PDF-' || die "the output is not a PDF"
if command -v pdfinfo >/dev/null && command -v pdftotext >/dev/null; then
  info="$(pdfinfo "$scratch/work/invoice.pdf")"
  grep -q "^Pages: *1$" <<<"$info" && grep -q "^Page size: .*(A4)$" <<<"$info" || die "the PDF is not one A4 page"
  pdftotext "$scratch/work/invoice.pdf" - | grep -q "Northwind Print Co" || die "the PDF lacks the invoice's text"
fi
say "   ok: $(cat "$scratch/convert.json")"
(cd "$scratch/work" && "${clean_env[@]}" "$bundle" merge invoice.pdf invoice.pdf -o twice.pdf --json) > "$scratch/merge.json" ||
  die "the bundle could not merge"
grep -q '"pages": 2' "$scratch/merge.json" || die "the merge did not give 2 pages: $(cat "$scratch/merge.json")"
echo 'await page.setContent("<h1>bundled</h1>"); return await page.$eval("h1", e => e.textContent);' > "$scratch/work/s.js"
(cd "$scratch/work" && "${clean_env[@]}" "$bundle" script s.js -o s.png --result result.json) ||
  die "the bundle could not run a script (the Playwright driver's Node)"
grep -q '"bundled"' "$scratch/work/result.json" && head -c 8 "$scratch/work/s.png" | grep -q PNG ||
  die "the script's result is wrong"
say "   ok: merge (pikepdf) and a script (Node from the bundled Playwright driver) work too"

say "2. opening the window (offscreen) and timing it"
starts=()
for round in 1 2 3 4 5; do
  t0=$EPOCHREALTIME
  "${clean_env[@]}" QT_QPA_PLATFORM=offscreen PRESSROOM_REPORT_SHOWN=1 "$bundle" 2> "$scratch/window.log" &
  pid=$!
  for _ in $(seq 1 300); do
    grep -q "pressroom: window shown" "$scratch/window.log" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.01
  done
  elapsed=$(since "$t0")
  grep -q "pressroom: window shown" "$scratch/window.log" || { cat "$scratch/window.log" >&2; die "the window did not open"; }
  kill "$pid" && wait "$pid" 2>/dev/null || true
  starts+=("$elapsed")
done
say "   ok: window shown after ${starts[*]} s (first run, then warm)"

say "3. installing the desktop launcher from the bundle"
"${clean_env[@]}" "$bundle" install-desktop >/dev/null || die "install-desktop failed"
entry="$scratch/home/share/applications/io.pressroom.Pressroom.desktop"
grep -qx "Exec=$bundle %F" "$entry" || die "the launcher does not start the bundle: $(grep Exec= "$entry")"
"${clean_env[@]}" "$bundle" uninstall-desktop >/dev/null && [ ! -e "$entry" ] || die "uninstall-desktop left the launcher"
say "   ok: the launcher runs $bundle"

say "bundle size: $(du -sh build/dist/pressroom | cut -f1) ($(find build/dist/pressroom -type f | wc -l) files); largest parts:"
du -sh build/dist/pressroom/_internal/* | sort -h | tail -4 | sed 's/^/    /' >&2
say "passed"
