#!/usr/bin/env bash
# Tags each release of CHANGELOG.md's version table (`| 0.7.0 | date | `commit` | ... |`) as v<version> at its
# commit, so a clone that did not receive the tags can recreate them. An existing tag is left as it is; one that
# names another commit is reported and the script fails.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
while IFS='|' read -r _ version _ commit _; do
  version=$(echo "$version" | tr -d ' ') commit=$(echo "$commit" | tr -d ' `')
  [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || continue
  if existing=$(git rev-parse -q --verify "refs/tags/v${version}^{commit}"); then
    [ "$existing" = "$(git rev-parse "${commit}^{commit}")" ] || { echo "v${version} names ${existing}, the changelog ${commit}"; status=1; }
  else
    git tag -a "v${version}" "$commit" -m "Release ${version} (see CHANGELOG.md)"
    echo "tagged v${version} at ${commit}"
  fi
done < <(grep -E '^\| [0-9]+\.[0-9]+\.[0-9]+ \|' CHANGELOG.md)
exit "$status"
