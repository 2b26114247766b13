#!/usr/bin/env bash
# The baseline side of a one-call A/B (ab-bench.sh, ab-embed.sh, ab-predict.sh): bundle.sh's entries built from
# COMMIT in a temporary worktree, tarred to .bundle-base.tar.xz. The worktree borrows this checkout's node_modules
# but links @virnucpro/* to its own packages: a plain symlink to node_modules would resolve them to this checkout's
# sources, and the "baseline" would be the new code.
# Usage: NO_DAWN=1 bash tools/device/bundle-base.sh COMMIT ENTRY.(ts|mjs) [ENTRY ...]   (from the repo root)
set -euo pipefail
commit=$1; shift
root=$(pwd); tree=$(mktemp -d /tmp/vnp-base.XXXXXX)
git worktree add -q --detach "$tree" "$commit"
trap 'git -C "$root" worktree remove --force "$tree"' EXIT
mkdir "$tree/node_modules" "$tree/node_modules/@virnucpro"
for entry in "$root"/node_modules/* "$root"/node_modules/.bin; do
  [ "$(basename "$entry")" = @virnucpro ] || ln -s "$entry" "$tree/node_modules/$(basename "$entry")"
done
for pkg in "$tree"/packages/*/; do
  name=$(node -p "require('$pkg/package.json').name")
  ln -s "$pkg" "$tree/node_modules/$name"
done
(cd "$tree" && bash tools/device/bundle.sh "$@" >/dev/null)
tar cJf "$root/.bundle-base.tar.xz" -C "$tree/.bundle" .
echo ".bundle-base.tar.xz: $(git rev-parse --short "$commit"), $*"
