#!/bin/sh
# Rebuilds the font `sidlens plot --png` and `sidlens report` rasterise with: DejaVu Sans
# (Debian's fonts-dejavu-core) cut to Latin, Greek, punctuation, arrows and maths operators.
# Needs `pip install fonttools`; not run in CI (the result is committed).
set -e
pyftsubset /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf \
  --unicodes="U+0020-007E,U+00A0-017F,U+0370-03FF,U+2010-2027,U+2030-205E,U+2070-209F,U+2190-21FF,U+2200-22FF,U+2260-2265,U+25A0-25FF,U+FFFD" \
  --layout-features='kern,liga' \
  --output-file="$(dirname "$0")/DejaVuSans-subset.ttf"
