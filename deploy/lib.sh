# Helpers shared by deploy/test.sh and deploy/compose-test.sh, which source this file. The
# sourcing script sets `started` and `TIME_LIMIT` and defines `fail MESSAGE` (prints what it
# knows and exits) and `status` (the coordinator's status as JSON).

say() { printf '[%4ds] %s\n' $((SECONDS - started)) "$*"; }
check_time() { [ $((SECONDS - started)) -lt $TIME_LIMIT ] || fail "over the time limit of ${TIME_LIMIT}s"; }
# field PYTHON-EXPRESSION-ON-s: evaluates the expression on the JSON object read from stdin.
field() { python3 -c "import json,sys; s=json.load(sys.stdin); print(eval(sys.argv[1]))" "$1"; }
# wait_for [WHAT] PYTHON-CONDITION-ON-s: waits (within the time limit) until the status meets it.
wait_for() {
    local condition="${*: -1}"
    while :; do
        check_time
        local s
        if s="$(status)" && [ "$(echo "$s" | field "$condition")" = "True" ]; then return 0; fi
        sleep 1
    done
}
# role_tokens DIR: a fresh random token per role in DIR/ROLE.token, readable by the image's user.
role_tokens() {
    for role in worker admin read; do
        head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$1/$role.token"
        chmod 0644 "$1/$role.token"
    done
}
