#!/bin/sh
# usage: scripts/get_data.sh [--from DIR] [--out DIR]
#
# Multi30k task 1 (German-English image captions) for task = parallel_text.
#
# Without --from it downloads the raw (untokenised, cased) files of the Multi30k repository,
#   https://github.com/multi30k/dataset  (data/task1/raw/*.gz)
# and unpacks them. With --from DIR it copies DIR/{split}.{de,en} instead (the project's
# fixture is ../shared/data/multi30k). Either way it then checks every split: both languages
# present, the expected number of lines, the same number of lines on both sides (a pair per
# line), no empty line. The files go to --out (default data/multi30k), which git ignores:
# the data's licence keeps it out of the repository.
set -eu

OUT=data/multi30k
FROM=
while [ $# -gt 0 ]; do
    case "$1" in
        --from) FROM=${2:?--from needs a folder}; shift 2 ;;
        --out) OUT=${2:?--out needs a folder}; shift 2 ;;
        -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "get_data.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done

URL=https://raw.githubusercontent.com/multi30k/dataset/master/data/task1/raw
# split:lines (the sizes published with the data set)
SPLITS="train:29000 val:1014 test_2016_flickr:1000 test_2017_flickr:1000 test_2017_mscoco:461 test_2018_flickr:1071"

mkdir -p "$OUT"
fetch() {   # fetch SPLIT LANG
    dst="$OUT/$1.$2"
    if [ -n "$FROM" ]; then
        [ -f "$FROM/$1.$2" ] || { echo "get_data.sh: $FROM/$1.$2: no such file" >&2; exit 1; }
        cp "$FROM/$1.$2" "$dst.tmp"
    elif command -v curl >/dev/null 2>&1; then
        curl -fsSL "$URL/$1.$2.gz" | gunzip > "$dst.tmp" || { echo "get_data.sh: download of $URL/$1.$2.gz failed" >&2; rm -f "$dst.tmp"; exit 1; }
    elif command -v wget >/dev/null 2>&1; then
        wget -qO- "$URL/$1.$2.gz" | gunzip > "$dst.tmp" || { echo "get_data.sh: download of $URL/$1.$2.gz failed" >&2; rm -f "$dst.tmp"; exit 1; }
    else
        echo "get_data.sh: need curl or wget to download (or use --from DIR)" >&2; exit 1
    fi
    mv "$dst.tmp" "$dst"
}

status=0
for entry in $SPLITS; do
    split=${entry%%:*}; want=${entry#*:}
    for lang in de en; do fetch "$split" "$lang"; done
    # Count lines the way the trainer does: a last line without '\n' still counts.
    de=$(awk 'END { print NR }' "$OUT/$split.de")
    en=$(awk 'END { print NR }' "$OUT/$split.en")
    empty=$(awk 'NF == 0 { n++ } END { print n + 0 }' "$OUT/$split.de" "$OUT/$split.en")
    if [ "$de" != "$en" ]; then
        echo "get_data.sh: $split is not aligned: $de German lines, $en English lines" >&2; status=1
    elif [ "$de" != "$want" ]; then
        echo "get_data.sh: $split has $de lines, expected $want" >&2; status=1
    elif [ "$empty" != 0 ]; then
        echo "get_data.sh: $split has $empty empty lines" >&2; status=1
    else
        echo "$split: $de sentence pairs"
    fi
done
[ $status = 0 ] && echo "Multi30k is in $OUT/"
exit $status
