#!/usr/bin/env bash
# Offline checks of the deployment recipes; no Docker engine or cluster needed:
#   - the compose file resolves (`docker-compose config`),
#   - deploy/k8s renders with `kubectl kustomize` and every object passes kubernetes-validate
#     (pinned) against the Kubernetes API schema, strictly (unknown fields are errors),
#   - the systemd units pass `systemd-analyze verify` with no complaint at all.
# A missing tool is installed from Debian's packages or PyPI; one that cannot be had is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
K8S_VERSION=1.31.0
VALIDATE_VERSION=1.31.0

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "== docker-compose config"
if ! command -v docker-compose >/dev/null; then apt-get install -y -q docker-compose >/dev/null; fi
for role in worker admin read; do echo "check-$role-token" > "$work/$role.token"; done
PENTAGRID_SECRETS_DIR="$work" docker-compose -f deploy/compose.yaml config -q

echo "== kubectl kustomize deploy/k8s + kubernetes-validate $VALIDATE_VERSION (Kubernetes $K8S_VERSION)"
if ! command -v kubectl >/dev/null; then apt-get install -y -q kubectl >/dev/null; fi
if ! command -v kubernetes-validate >/dev/null ||
    [ "$(kubernetes-validate --version)" != "$VALIDATE_VERSION" ]; then
    python3 -m pip install -q "kubernetes-validate==$VALIDATE_VERSION"
fi
# The tokens are kustomize secret inputs (not in git); render with throwaway ones when absent.
made_tokens=()
for role in worker admin read; do
    if [ ! -e "deploy/k8s/$role.token" ]; then
        echo "render-check-$role-token" > "deploy/k8s/$role.token"
        made_tokens+=("deploy/k8s/$role.token")
    fi
done
trap 'rm -rf "$work" "${made_tokens[@]}"' EXIT
kubectl kustomize deploy/k8s > "$work/rendered.yaml"
kinds="$(grep -c '^kind:' "$work/rendered.yaml")"
kubernetes-validate --quiet --strict -k "$K8S_VERSION" "$work/rendered.yaml" deploy/k8s/optional/hpa.yaml
echo "rendered $kinds objects, all valid (+ optional HPA)"

echo "== systemd-analyze verify"
if command -v systemd-analyze >/dev/null; then
    # verify wants the binary to exist and a template to have an instance.
    binary="$(command -v true)"
    for unit in deploy/systemd/*.service deploy/systemd/*.timer; do
        sed "s#/usr/local/bin/pentagrid#$binary#" "$unit" > "$work/$(basename "$unit" | sed 's/@\./@1./')"
    done
    out="$(cd "$work" && systemd-analyze verify ./*.service ./*.timer 2>&1)" || { echo "$out"; exit 1; }
    if [ -n "$out" ]; then echo "$out"; echo "systemd-analyze verify complained"; exit 1; fi
    echo "units verified"
else
    echo "systemd-analyze is not installed: units not verified"
fi

echo "== Grafana dashboard"
python3 - <<'PY'
import json, re
dashboard = json.load(open("deploy/grafana/pentagrid.json"))
readme = open("README.md").read()
used = {m for p in dashboard["panels"] for t in p["targets"]
        for m in re.findall(r"pentagrid_[a-z_]+", t["expr"])}
base = lambda m: re.sub(r"_(bucket|sum|count)$", "", m)
missing = sorted(m for m in used if f"`{base(m)}`" not in readme)
assert not missing, f"dashboard uses metrics the README does not document: {missing}"
print(f"{len(dashboard['panels'])} panels over {len(used)} documented metrics")
PY
