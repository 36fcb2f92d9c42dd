#!/bin/sh
# Builds ns3/dumbbell.cc against the ns-3.44 wheel from PyPI (`pip install ns3`).
# Usage: ns3/build.sh [VENV [OUT]]   (defaults: /work/ns3venv, target/ns3/dumbbell)
set -eu
VENV=${1:-/work/ns3venv}
OUT=${2:-$(dirname "$0")/../target/ns3/dumbbell}
NS=$("$VENV/bin/python" -c 'import importlib.util,os; print(os.path.dirname(importlib.util.find_spec("ns3").origin or importlib.util.find_spec("ns3").submodule_search_locations[0]))' 2>/dev/null || true)
[ -d "$NS/include" ] || NS=$(echo "$VENV"/lib/python3*/site-packages/ns3)
mkdir -p "$(dirname "$OUT")"
LIBS=""
for m in core network internet point-to-point traffic-control applications stats bridge mobility; do
    LIBS="$LIBS -lns3.44-$m"
done
g++ -std=c++20 -O2 -I"$NS/include" "$(dirname "$0")/dumbbell.cc" -o "$OUT" \
    -L"$NS/lib64" $LIBS -Wl,-rpath,"$NS/lib64"
echo "$OUT"
