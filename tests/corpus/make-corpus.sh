#!/bin/sh
# make-corpus.sh - rebuild the corpus of broken traces (tests/corpus/*.gpz and
# *.expect) with tests/corpus/make-corpus.c. Run from anywhere; O= names the
# build folder (default build). Review the diff before committing: a changed
# .expect means a reader message or the generator changed.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
O=${O:-build}
make -s "$O/libgptrace.a" "$O/libgpbase.a"
${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -Werror -I. -o "$O/make-corpus" \
	tests/corpus/make-corpus.c tests/tools/gen.c "$O/libgptrace.a" "$O/libgpbase.a" \
	$(pkg-config --libs zlib) -lm
rm -f tests/corpus/*.gpz tests/corpus/*.expect
"$O/make-corpus" tests/corpus
echo "make-corpus: $(ls tests/corpus/*.gpz | wc -l) files in tests/corpus"
