#!/bin/sh
# Creates the namespace with temporal-flow's retention (or sets that retention on an existing one) and
# registers temporal-flow's search attributes that it lacks. Safe to re-run.
# Run by docker-compose.yml (service temporal-admin-tools); test/cluster/compose-setup.test.ts runs it
# against the cluster of `npm run test:cluster`.
# Needs the `temporal` CLI on PATH; TEMPORAL_ADDRESS; TEMPORAL_NAMESPACE; TFLOW_RETENTION (e.g. 30d);
# TFLOW_SEARCH_ATTRIBUTES: name=Type pairs separated by spaces.
set -eu
: "${TEMPORAL_ADDRESS:?}" "${TEMPORAL_NAMESPACE:?}" "${TFLOW_RETENTION:?}" "${TFLOW_SEARCH_ATTRIBUTES:?}"
ns=$TEMPORAL_NAMESPACE

if temporal operator namespace describe --namespace "$ns" >/dev/null 2>&1; then
  temporal operator namespace update --namespace "$ns" --retention "$TFLOW_RETENTION"
else
  temporal operator namespace create --namespace "$ns" --retention "$TFLOW_RETENTION"
fi

# A new namespace reaches each service's cache within seconds; until then it reads as not found.
tries=0
until temporal operator search-attribute list --namespace "$ns" >/dev/null 2>&1; do
  tries=$((tries + 1))
  [ "$tries" -lt 30 ] || { echo "namespace $ns is still not served after 30 s" >&2; exit 1; }
  sleep 1
done

for pair in $TFLOW_SEARCH_ATTRIBUTES; do
  name=${pair%%=*}
  type=${pair#*=}
  if temporal operator search-attribute list --namespace "$ns" | grep -qw "$name"; then
    echo "search attribute $name: already registered"
  else
    temporal operator search-attribute create --namespace "$ns" --name "$name" --type "$type"
  fi
done
