#!/bin/sh
# Pack a firmware image with a build id that says what it is (issue 39
# item 6): 7 characters of the commit the tree is at, '-' for a clean tree
# or '+' for uncommitted changes (or no git), then dimmnet-flash's --digest
# appends the code's CRC-32. Run at every build, so the id follows edits
# made after configuring.
#   fw-pack.sh TOP DIMMNET-FLASH PACK-ARGS...
top=$1 tool=$2
shift 2
commit=$(git -C "$top" rev-parse --short=7 HEAD 2>/dev/null | cut -c1-7)
mark=+
if [ -n "$commit" ] && [ -z "$(git -C "$top" status --porcelain 2>/dev/null)" ]; then
    mark=-
fi
exec "$tool" pack --build "${commit:-unknown}$mark" --digest "$@"
