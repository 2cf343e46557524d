# Every SVG figure that README.md and docs/*.md embed (![...](....svg)) draws in a real browser:
# one headless Chromium loads a page that draws each figure onto a canvas at its own size and
# counts the pixels that are not background (any channel below 230 of 255). A figure passes
# when it loads, its drawn size is the width and height its <svg> tag declares, at least 1% of
# the picture is drawn, and at least 0.5% of its central region (the middle half across and
# down, where the plot area lies) is. A figure that does not parse, or draws nothing, fails.
# Skips where no Chromium is installed (Debian: apt-get install chromium).
. tests/lib.sh

only_optimised figures_browser "the committed figures do not depend on the build: checked once with the optimised one"
browser=""
for b in chromium chromium-browser google-chrome; do
    if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
if [ -z "$browser" ]; then
    skip figures_browser "no chromium on this machine (Debian: apt-get install chromium)"
    exit 0
fi

# The embedded figures, each as a path from the top level, once.
for md in README.md docs/*.md; do
    dir=$(dirname "$md")
    grep -o '!\[[^]]*\]([^)]*\.svg)' "$md" | sed 's/.*](\(.*\))$/\1/' | while read -r rel; do
        case "$dir" in .) echo "$rel" ;; *) echo "$dir/$rel" ;; esac
    done
done | while read -r p; do realpath -m --relative-to=. "$p"; done | sort -u >"$TMP/figures"
n=$(wc -l <"$TMP/figures")
if [ "$n" -lt 1 ]; then fail figures_browser "no embedded SVG found in README.md and docs/*.md"; exit 0; fi

# The page: one entry [path, declared width, declared height] per figure.
top=$(pwd)
{
    echo '<!DOCTYPE html><html><body><pre id="out"></pre><script>'
    echo 'const figs = ['
    while read -r f; do
        tag=$(grep -o '<svg[^>]*>' "$f" 2>/dev/null | head -n 1)
        w=$(echo "$tag" | sed -n 's/.* width="\([0-9.]*\)".*/\1/p')
        h=$(echo "$tag" | sed -n 's/.* height="\([0-9.]*\)".*/\1/p')
        echo "[\"$f\", ${w:-0}, ${h:-0}],"
    done <"$TMP/figures"
    echo '];'
    cat <<EOF
const out = document.getElementById("out");
let left = figs.length;
const say = (s) => { out.textContent += s + "\n"; if (--left == 0) document.title = "done"; };
figs.forEach(([path, w, h]) => {
    const img = new Image();
    img.onload = () => {
        const c = document.createElement("canvas");
        c.width = img.naturalWidth; c.height = img.naturalHeight;
        const g = c.getContext("2d");
        g.fillStyle = "white"; g.fillRect(0, 0, c.width, c.height);
        g.drawImage(img, 0, 0);
        let all = 0, mid = 0;
        try {
            const d = g.getImageData(0, 0, c.width, c.height).data;
            for (let y = 0; y < c.height; y++) for (let x = 0; x < c.width; x++) {
                const i = 4 * (y * c.width + x);
                if (d[i] < 230 || d[i + 1] < 230 || d[i + 2] < 230) {
                    all++;
                    if (4 * x >= c.width && 4 * x < 3 * c.width && 4 * y >= c.height && 4 * y < 3 * c.height) mid++;
                }
            }
            say("FIG " + path + " " + w + " " + h + " " + c.width + " " + c.height + " " + all + " " + mid);
        } catch (e) { say("FIG " + path + " " + w + " " + h + " unreadable " + e); }
    };
    img.onerror = () => say("FIG " + path + " " + w + " " + h + " failed to load");
    img.src = "file://$top/" + path;
});
</script></body></html>
EOF
} >"$TMP/page.html"

# --allow-file-access-from-files: the page may read back the pixels of the figures it drew
# (file:// images are of another origin otherwise). The wrapper's and D-Bus's complaints on
# stderr are noise here.
start=$(date +%s)
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --allow-file-access-from-files \
    --virtual-time-budget=30000 --dump-dom "file://$TMP/page.html" >"$TMP/dom" 2>"$TMP/browser.err"
rc=$?
if [ $rc -ne 0 ] || ! grep -q '<title>done</title>' "$TMP/dom"; then
    fail figures_browser "$browser exited $rc without drawing every figure: $(grep -c '^FIG' "$TMP/dom") of $n; $(grep -iv dbus "$TMP/browser.err" | tail -n 2)"
    exit 0
fi
grep '^FIG \|^<html>.*FIG ' "$TMP/dom" | sed 's/.*FIG /FIG /' >"$TMP/results"

while read -r f; do
    line=$(grep "^FIG $f " "$TMP/results" | head -n 1)
    # shellcheck disable=SC2086 # the fields of the line
    set -- $line
    if [ -z "$line" ]; then fail "figure_draws $f" "no result from the browser"; continue; fi
    w=$3; h=$4; dw=$5; dh=$6; all=$7; mid=${8:-}
    case "$dw" in
        failed|unreadable) fail "figure_draws $f" "$(echo "$line" | cut -d' ' -f5-)"; continue ;;
    esac
    # 1% of the picture, 0.5% of its middle quarter (area w/2 x h/2): all * 100 >= w * h, ...
    if [ "$dw" != "${w%.*}" ] || [ "$dh" != "${h%.*}" ]; then
        fail "figure_draws $f" "drawn at ${dw}x$dh, its <svg> declares ${w}x$h"
    elif [ $((all * 100)) -lt $((dw * dh)) ] || [ $((mid * 800)) -lt $((dw * dh)) ]; then
        fail "figure_draws $f" "nearly blank at ${dw}x$dh: $all pixels drawn, $mid in the middle"
    else
        ok "figure_draws $f (${dw}x$dh, $((all * 100 / (dw * dh)))% drawn)"
    fi
done <"$TMP/figures"
echo "# $n figures in one $browser call: $(( $(date +%s) - start )) s"
