#!/usr/bin/env bash
# Ferry local agent installer.
#
#   install.sh --dispatch     add an agent instance for a workspace (asks host, token, checkout;
#                             confirms the workspace by name before wiring anything)
#   install.sh --list         installed instances and whether each is up
#   install.sh --update       pull the agent's code (when it is a git checkout; installed from a
#                             Ferry: its newest tarball), reinstall it, restart every instance
#   install.sh --remove ID    stop, disable and forget one instance
#
# Served by Ferry (GET /agent/install.sh) it needs no checkout: piped to bash
#   curl -fsSL https://ferry.example.com/agent/install.sh | sudo bash -s -- --dispatch
# it downloads the agent's tarball named below, refuses it unless its SHA-256 matches, and
# installs from it; --update later fetches the newest tarball from the same Ferry.
#
# Answers are read from stdin (one per line), so it can be scripted; piped from curl they are
# read from the terminal, or else from what follows the script on stdin. Overrides (tests use them to
# run in a temporary root without systemd):
#   SERVICE_ETC_DIR         /etc/service-dispatch       <id>.env files (mode 600)
#   SERVICE_UNIT_DIR        /etc/systemd/system         the template unit and per-instance drop-ins
#   SYSTEMCTL               systemctl                   command used for systemctl calls
#   SERVICE_INSTALL_PREFIX  /opt/service-dispatch       where the agent's code is installed
#   SERVICE_STATE_ROOT      /var/lib/service-dispatch   per-instance state folders
#   SERVICE_PYTHON          python3                     the Python 3.9+ used for checks
#   SERVICE_RUN_AS          (owner of the checkout)     User= of the unit; empty: no User= drop-in
#   SERVICE_RUNUSER         runuser -u                  runs a command as that user (USER -- CMD...)
set -euo pipefail

# Filled in by Ferry when it serves this file: its address and the agent tarball to install (the
# server rewrites exactly these three lines). Empty in a checkout, which installs the code beside
# this script.
SERVED_BASE_URL=''
SERVED_VERSION=''
SERVED_SHA256=''

# Empty when bash reads this script from stdin (`curl ... | bash -s`).
SCRIPT_SOURCE=${BASH_SOURCE[0]-}
if [[ -n $SCRIPT_SOURCE ]]; then
  SCRIPT_DIR=$(cd "$(dirname "$SCRIPT_SOURCE")" && pwd -P)
else
  SCRIPT_DIR=
fi
ETC_DIR=${SERVICE_ETC_DIR:-/etc/service-dispatch}
UNIT_DIR=${SERVICE_UNIT_DIR:-/etc/systemd/system}
PREFIX=${SERVICE_INSTALL_PREFIX:-/opt/service-dispatch}
STATE_ROOT=${SERVICE_STATE_ROOT:-/var/lib/service-dispatch}
PYTHON=${SERVICE_PYTHON:-python3}
read -r -a SYSTEMCTL_CMD <<<"${SYSTEMCTL:-systemctl}"
read -r -a RUNUSER_CMD <<<"${SERVICE_RUNUSER:-runuser -u}"
UNIT_TEMPLATE=service-dispatch@.service

say() { printf '%s\n' "$*"; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die() {
  printf 'error: %s\n' "$*" >&2
  exit 1
}
sysctl() { "${SYSTEMCTL_CMD[@]}" "$@"; }

usage() {
  if [[ -r $SCRIPT_SOURCE ]]; then
    sed -n '4,10p' "$SCRIPT_SOURCE" | sed 's/^# \{0,1\}//'
  else
    say "install.sh --dispatch | --list | --update | --remove ID"
  fi
}

# ask VAR "Prompt: " [default]  -- required unless a default is given; EOF takes the default.
ask() {
  local __var=$1 __prompt=$2 __default=${3-} __answer=
  printf '%s' "$__prompt" >&2
  if ! IFS= read -r __answer; then
    printf '\n' >&2
    if [[ $# -ge 3 ]]; then
      __answer=$__default
    else
      die "no answer to \"${__prompt%: }\" (stdin ended)"
    fi
  fi
  [[ -z $__answer && $# -ge 3 ]] && __answer=$__default
  printf -v "$__var" '%s' "$__answer"
}

ask_secret() {
  local __var=$1 __prompt=$2 __answer=
  printf '%s' "$__prompt" >&2
  if [[ -t 0 ]]; then
    IFS= read -rs __answer || die "no answer"
    printf '\n' >&2
  else
    IFS= read -r __answer || die "no answer to \"${__prompt%: }\" (stdin ended)"
  fi
  printf -v "$__var" '%s' "$__answer"
}

yes_no() { # yes_no "Question? [y/N] " -> 0 for y/yes
  local answer=
  ask answer "$1" ""
  [[ $answer =~ ^[Yy]([Ee][Ss])?$ ]]
}

valid_id() { [[ $1 =~ ^[A-Za-z0-9_-]{8,64}$ ]]; }

new_install_id() {
  local id
  while :; do
    id=$(od -An -tx1 -N8 /dev/urandom | tr -d ' \n')
    [[ ${#id} -eq 16 && ! -e "$ETC_DIR/$id.env" ]] && break
  done
  printf '%s' "$id"
}

# A value for a systemd EnvironmentFile line: bare when safe, else double-quoted and escaped.
env_value() {
  local v=$1
  if [[ $v =~ ^[A-Za-z0-9_./:@%+,=-]*$ ]]; then
    printf '%s' "$v"
  else
    v=${v//\\/\\\\}
    v=${v//\"/\\\"}
    printf '"%s"' "$v"
  fi
}

# env_get FILE KEY -> the value (outer double quotes and their escapes undone)
env_get() {
  local line v
  line=$(grep -m1 "^$2=" "$1" 2>/dev/null || true)
  v=${line#*=}
  if [[ $v == \"*\" ]]; then
    v=${v:1:${#v}-2}
    v=${v//\\\"/\"}
    v=${v//\\\\/\\}
  fi
  printf '%s' "$v"
}

# cli_for_user USER CLI -> the CLI's full path as USER finds it (empty when not found). The
# installer runs as root, whose PATH rarely has a CLI the user installed (~/.local/bin/claude,
# an npm prefix, nvm), so ask USER's own login shell, then look in the usual user folders.
cli_for_user() {
  local user=$1 cli=$2 found= home= dir
  if [[ -z $user || $user == "$(id -un)" ]]; then
    found=$(command -v "$cli" 2>/dev/null || true)
    home=$HOME
  else
    found=$("${RUNUSER_CMD[@]}" "$user" -- bash -lic 'command -v -- "$1"' bash "$cli" 2>/dev/null </dev/null | tail -n1 || true)
    home=$(getent passwd "$user" 2>/dev/null | cut -d: -f6 || true)
  fi
  if [[ $found != /* ]]; then
    found=
    for dir in "$home/.local/bin" "$home/.claude/local" "$home/.npm-global/bin" "$home/bin" \
      "$home"/.nvm/versions/node/*/bin /usr/local/bin; do
      [[ -n $home || $dir == /usr/local/bin ]] || continue
      if [[ -x $dir/$cli ]]; then
        found=$dir/$cli
        break
      fi
    done
  fi
  printf '%s' "$found"
}

instances() { # ids of installed instances, one per line
  local f
  shopt -s nullglob
  for f in "$ETC_DIR"/*.env; do
    basename "$f" .env
  done
  shopt -u nullglob
}

check_prereqs() {
  command -v "$PYTHON" >/dev/null 2>&1 || die "$PYTHON is not installed (Python 3.9 or later is required)"
  "$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)' ||
    die "$("$PYTHON" --version 2>&1) is too old: Python 3.9 or later is required"
  command -v git >/dev/null 2>&1 || die "git is not installed"
}

# Copies the agent's code to $PREFIX (unless this script already runs from there).
install_code() {
  mkdir -p "$PREFIX"
  local prefix_real
  prefix_real=$(cd "$PREFIX" && pwd -P)
  if [[ $prefix_real != "$SCRIPT_DIR" ]]; then
    local tmp
    tmp=$(mktemp -d "$PREFIX/.install.XXXXXX")
    cp -R "$SCRIPT_DIR/ferry_agent" "$tmp/ferry_agent"
    find "$tmp" -name __pycache__ -type d -prune -exec rm -rf {} +
    cp "$SCRIPT_DIR/install.sh" "$tmp/install.sh"
    [[ -f $SCRIPT_DIR/README.md ]] && cp "$SCRIPT_DIR/README.md" "$tmp/README.md"
    mkdir -p "$tmp/systemd"
    cp "$SCRIPT_DIR/systemd/$UNIT_TEMPLATE" "$tmp/systemd/$UNIT_TEMPLATE"
    rm -rf "$PREFIX/ferry_agent" "$PREFIX/systemd"
    mv "$tmp/ferry_agent" "$tmp/systemd" "$PREFIX/"
    mv -f "$tmp/install.sh" "$PREFIX/install.sh"
    [[ -f $tmp/README.md ]] && mv -f "$tmp/README.md" "$PREFIX/README.md"
    rmdir "$tmp" 2>/dev/null || rm -rf "$tmp"
    chmod -R a+rX "$PREFIX"
    chmod 755 "$PREFIX/install.sh"
    # Where --update gets newer code: the Ferry it was fetched from, else this folder.
    printf '%s\n' "${FERRY_AGENT_FROM:-$SCRIPT_DIR}" >"$PREFIX/SOURCE"
  fi
  mkdir -p "$UNIT_DIR"
  sed -e "s#/etc/service-dispatch#$ETC_DIR#g" -e "s#/opt/service-dispatch#$PREFIX#g" \
    "$SCRIPT_DIR/systemd/$UNIT_TEMPLATE" >"$UNIT_DIR/$UNIT_TEMPLATE.tmp"
  mv -f "$UNIT_DIR/$UNIT_TEMPLATE.tmp" "$UNIT_DIR/$UNIT_TEMPLATE"
  chmod 644 "$UNIT_DIR/$UNIT_TEMPLATE"
}

cmd_dispatch() {
  check_prereqs
  mkdir -p "$ETC_DIR" 2>/dev/null && [[ -w $ETC_DIR ]] ||
    die "cannot write to $ETC_DIR; run this as root (sudo bash install.sh --dispatch)"
  chmod 755 "$ETC_DIR" 2>/dev/null || true

  local url token checkout code_root project
  if [[ -n ${FERRY_AGENT_FROM-} ]]; then
    ask url "Workspace host (SERVICE_URL) [$FERRY_AGENT_FROM]: " "$FERRY_AGENT_FROM"
  else
    ask url "Workspace host (SERVICE_URL, e.g. https://ferry.example.com): "
  fi
  url=${url//[[:space:]]/}
  [[ -n $url ]] || die "the workspace host is required"
  [[ $url =~ ^https?:// ]] || url="https://$url"
  while [[ $url == */ ]]; do url=${url%/}; done

  ask_secret token "API token with scope platform:dispatch (input hidden): "
  token=${token//[[:space:]]/}
  [[ -n $token ]] || die "the token is required"

  ask checkout "Checkout to work in (a git repository, or a folder of repositories): "
  checkout=${checkout/#\~/$HOME}
  [[ -d $checkout ]] || die "$checkout is not a folder"
  checkout=$(cd "$checkout" && pwd -P)
  if [[ -e $checkout/.git ]]; then
    # The checkout is the repo itself: CODE_ROOT is its parent, PROJECT its name (SPEC.md).
    code_root=$(dirname "$checkout")
    project=$(basename "$checkout")
  else
    code_root=$checkout
    local repos=() d
    for d in "$code_root"/*/; do
      [[ -e $d.git ]] && repos+=("$(basename "$d")")
    done
    ((${#repos[@]})) || die "$code_root is not a git repository and holds none"
    say "Repositories in $code_root: ${repos[*]}" >&2
    ask project "Project (one of the repositories above): "
    [[ -n $project && $project != */* && -e $code_root/$project/.git ]] ||
      die "$code_root/$project is not a git repository"
  fi

  say "Checking the token with $url ..." >&2
  local who rc=0
  who=$(SERVICE_URL=$url SERVICE_TOKEN=$token PYTHONPATH=$SCRIPT_DIR "$PYTHON" -m ferry_agent.whoami) || rc=$?
  case $rc in
    0) ;;
    3) die "the token was refused; create one with scope platform:dispatch on the API tokens page" ;;
    *) die "could not confirm the workspace at $url" ;;
  esac
  local ws_name ws_slug
  # Here-strings, not `printf | awk`: awk's early exit could leave printf writing to a closed pipe,
  # and under pipefail that SIGPIPE (141) ended the installer (seen once on a loaded host).
  ws_name=$(awk -F'\t' '$1 == "workspace" { print $2; exit }' <<<"$who")
  ws_slug=$(awk -F'\t' '$1 == "workspace" { print $3; exit }' <<<"$who")
  [[ -n $ws_name ]] || die "the server did not name a workspace"
  if ! yes_no "Connect to workspace '$ws_name' ($ws_slug)? [y/N] "; then
    say "Nothing was changed."
    exit 1
  fi

  local agents
  agents=$(awk -F'\t' '$1 == "agent" { printf "%s%s (%s)", sep, $2, ($3 == "online" ? "online" : "not connected"); sep = ", " }' <<<"$who")
  if [[ -n $agents ]]; then
    say "Workspace '$ws_name' already has agents: $agents." >&2
    say "Another instance gets its own install id, its own room and its own @-name." >&2
    if ! yes_no "Add another instance? [y/N] "; then
      say "Nothing was changed."
      exit 1
    fi
  fi

  # The instance runs as the checkout's owner: the CLI is looked up as that user, not as root.
  local run_as
  if [[ -n ${SERVICE_RUN_AS+x} ]]; then
    run_as=$SERVICE_RUN_AS
  else
    run_as=$(stat -c %U "$checkout" 2>/dev/null || true)
    [[ $run_as == root || $run_as == UNKNOWN ]] && run_as=
  fi
  local who_runs=${run_as:-$(id -un)}

  local default_cli=claude cli name
  if [[ -z $(cli_for_user "$run_as" claude) && -n $(cli_for_user "$run_as" codex) ]]; then default_cli=codex; fi
  ask cli "Coding CLI, claude or codex [$default_cli]: " "$default_cli"
  cli=$(printf '%s' "$cli" | tr '[:upper:]' '[:lower:]')
  [[ $cli == claude || $cli == codex ]] || die "the coding CLI must be claude or codex"
  # systemd's PATH is short (/usr/local/bin:/usr/bin:/bin...): pin the CLI's full path and put
  # its folder first on the unit's PATH (an npm-installed CLI needs the node beside it).
  local cli_path
  cli_path=$(cli_for_user "$run_as" "$cli")
  if [[ -n $cli_path ]]; then
    say "Found $cli for $who_runs: $cli_path" >&2
  else
    warn "$cli was not found for $who_runs (the user the agent runs as); install it as $who_runs, then set SERVICE_CLI_COMMAND in the env file (install.sh --list shows it missing)"
  fi
  ask name "Agent name, @-mentionable [$project]: " ""
  name=$(printf '%s' "$name" | tr -d '\t\r\n')

  local id env_file state_dir
  id=$(new_install_id)
  env_file=$ETC_DIR/$id.env
  state_dir=$STATE_ROOT/$id

  install_code

  mkdir -p "$state_dir"
  chmod 700 "$state_dir"
  if [[ -n $run_as && $(id -u) == 0 ]]; then chown "$run_as" "$state_dir" 2>/dev/null || true; fi

  (
    umask 077
    {
      printf '# Ferry agent instance %s (workspace %s, %s). Written by install.sh.\n' "$id" "$ws_name" "$ws_slug"
      printf '# Never copy this file to make another instance: run install.sh --dispatch again.\n'
      printf 'SERVICE_URL=%s\n' "$(env_value "$url")"
      printf 'SERVICE_TOKEN=%s\n' "$(env_value "$token")"
      printf 'SERVICE_INSTALL_ID=%s\n' "$id"
      printf 'CODE_ROOT=%s\n' "$(env_value "$code_root")"
      printf 'PROJECT=%s\n' "$(env_value "$project")"
      printf 'SERVICE_CLI=%s\n' "$cli"
      if [[ -n $cli_path ]]; then
        printf 'SERVICE_CLI_COMMAND=%s\n' "$(env_value "$cli_path")"
        printf 'PATH=%s\n' "$(env_value "$(dirname "$cli_path"):$UNIT_PATH")"
      fi
      [[ -n $name ]] && printf 'SERVICE_AGENT_NAME=%s\n' "$(env_value "$name")"
      printf 'SERVICE_STATE_DIR=%s\n' "$(env_value "$state_dir")"
    } >"$env_file.tmp"
  )
  chmod 600 "$env_file.tmp"
  mv -f "$env_file.tmp" "$env_file"

  if [[ -n $run_as ]]; then
    mkdir -p "$UNIT_DIR/service-dispatch@$id.service.d"
    printf '[Service]\nUser=%s\n' "$run_as" >"$UNIT_DIR/service-dispatch@$id.service.d/10-user.conf"
  fi

  sysctl daemon-reload
  sysctl enable --now "service-dispatch@$id"
  say "Installed agent instance $id for workspace '$ws_name' ($ws_slug): $code_root/$project with $cli."
  say "  settings: $env_file"
  say "  logs:     journalctl -u service-dispatch@$id -f"
}

# systemd's PATH for a unit that sets none (the env file's PATH, when install.sh found the CLI,
# replaces it).
UNIT_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# instance_user ID -> User= of the instance's drop-in (empty: the unit runs as root)
instance_user() {
  sed -n 's/^User=//p' "$UNIT_DIR/service-dispatch@$1.service.d/10-user.conf" 2>/dev/null | head -n1
}

# cli_status ID -> "claude 2.1.332" (the CLI and its version), or says it is missing. Looked up
# as the unit would run it: as the instance's user, with the unit's PATH (not root's).
cli_status() {
  local env_file=$ETC_DIR/$1.env user cli command program path version
  local as_user=()
  user=$(instance_user "$1")
  if [[ -n $user && $user != "$(id -un)" ]]; then as_user=("${RUNUSER_CMD[@]}" "$user" --); fi
  cli=$(env_get "$env_file" SERVICE_CLI)
  cli=${cli:-claude}
  command=$(env_get "$env_file" SERVICE_CLI_COMMAND)
  command=${command:-$cli}
  path=$(env_get "$env_file" PATH)
  path=${path:-$UNIT_PATH}
  read -r program _ <<<"$command"
  if ! ${as_user[@]+"${as_user[@]}"} env PATH="$path" bash -c 'command -v -- "$1"' bash "$program" \
    >/dev/null 2>&1 </dev/null; then
    printf '%s MISSING (%s not found%s)' "$cli" "$program" "${user:+ for $user}"
    return
  fi
  # shellcheck disable=SC2086 # SERVICE_CLI_COMMAND is a command line: split it as the agent does
  version=$(${as_user[@]+"${as_user[@]}"} env PATH="$path" timeout 10 $command --version \
    2>/dev/null </dev/null | head -n1 || true)
  version=${version% (Claude Code)}
  version=${version#codex-cli }
  printf '%s %s' "$cli" "${version:-(version unknown)}"
}

cmd_list() {
  local ids id status project url name cli
  ids=$(instances)
  if [[ -z $ids ]]; then
    say "No agent instances installed (in $ETC_DIR)."
    return 0
  fi
  printf '%-18s %-16s %-20s %-24s %s\n' ID STATUS PROJECT CLI WORKSPACE
  while IFS= read -r id; do
    status=$(sysctl is-active "service-dispatch@$id" 2>/dev/null || true)
    status=${status:-unknown}
    if [[ $status == active ]]; then status="up"; else status="down ($status)"; fi
    project=$(env_get "$ETC_DIR/$id.env" PROJECT)
    name=$(env_get "$ETC_DIR/$id.env" SERVICE_AGENT_NAME)
    url=$(env_get "$ETC_DIR/$id.env" SERVICE_URL)
    cli=$(cli_status "$id")
    [[ -n $name ]] && project="$project ($name)"
    printf '%-18s %-16s %-20s %-24s %s\n' "$id" "$status" "$project" "$cli" "$url"
  done <<<"$ids"
}

reinstall_and_restart() {
  install_code
  say "No dependencies to install (the agent uses the Python standard library only)."
  sysctl daemon-reload
  local id n=0
  while IFS= read -r id; do
    [[ -n $id ]] || continue
    sysctl restart "service-dispatch@$id"
    n=$((n + 1))
  done <<<"$(instances)"
  say "Updated the agent code in $PREFIX and restarted $n instance(s)."
}

cmd_update() {
  check_prereqs
  if [[ ${FERRY_UPDATE_PULLED-} == 1 ]]; then
    reinstall_and_restart # re-executed from the freshly pulled code
    return
  fi
  local source=$SCRIPT_DIR
  if [[ -f $SCRIPT_DIR/SOURCE ]]; then
    local recorded
    recorded=$(head -n1 "$SCRIPT_DIR/SOURCE")
    if [[ $recorded =~ ^https?:// ]]; then
      update_from_ferry "$recorded"
      return
    fi
    [[ -d $recorded && -f $recorded/install.sh ]] && source=$recorded
  fi
  if git -C "$source" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    say "Pulling the agent's code in $source ..."
    git -C "$source" pull --ff-only || die "git pull failed in $source; nothing was changed"
    # Run the pulled installer so its own changes apply too.
    exec env SERVICE_ETC_DIR="$ETC_DIR" SERVICE_UNIT_DIR="$UNIT_DIR" SERVICE_INSTALL_PREFIX="$PREFIX" \
      SERVICE_STATE_ROOT="$STATE_ROOT" SERVICE_PYTHON="$PYTHON" SYSTEMCTL="${SYSTEMCTL_CMD[*]}" \
      FERRY_UPDATE_PULLED=1 bash "$source/install.sh" --update
  fi
  say "$source is not a git checkout; reinstalling the code as it is."
  if [[ $source != "$SCRIPT_DIR" ]]; then
    exec env SERVICE_ETC_DIR="$ETC_DIR" SERVICE_UNIT_DIR="$UNIT_DIR" SERVICE_INSTALL_PREFIX="$PREFIX" \
      SERVICE_STATE_ROOT="$STATE_ROOT" SERVICE_PYTHON="$PYTHON" SYSTEMCTL="${SYSTEMCTL_CMD[*]}" \
      FERRY_UPDATE_PULLED=1 bash "$source/install.sh" --update
  fi
  reinstall_and_restart
}

cmd_remove() {
  local id=${1-}
  [[ -n $id ]] || die "usage: install.sh --remove ID (see install.sh --list)"
  valid_id "$id" || die "$id is not an install id"
  local env_file=$ETC_DIR/$id.env
  [[ -f $env_file ]] || die "no agent instance $id (no $env_file); see install.sh --list"
  local state_dir
  state_dir=$(env_get "$env_file" SERVICE_STATE_DIR)
  sysctl disable --now "service-dispatch@$id" || warn "systemctl could not stop service-dispatch@$id"
  rm -f "$env_file"
  rm -rf "$UNIT_DIR/service-dispatch@$id.service.d"
  if [[ -n $state_dir && $state_dir == "$STATE_ROOT/$id" && -d $state_dir ]]; then
    rm -rf "$state_dir"
  fi
  sysctl daemon-reload || true
  say "Removed agent instance $id (unit disabled, $env_file deleted)."
  say "The agent still appears in the workspace until removed there."
}

# fetch_verified URL SHA256 DEST: downloads URL to DEST only when its SHA-256 is SHA256. Python,
# not curl: python3 is required anyway, and the check and the message are the same everywhere.
fetch_verified() {
  "$PYTHON" -c '
import hashlib, sys, urllib.request
url, want, dest = sys.argv[1:4]
try:
    with urllib.request.urlopen(url, timeout=120) as response:
        data = response.read()
except Exception as error:
    sys.exit("error: could not download %s: %s" % (url, error))
got = hashlib.sha256(data).hexdigest()
if got != want.lower():
    sys.exit("error: refused the agent tarball %s: its SHA-256 is %s, not %s as the installer "
             "expects. Nothing was installed; fetch install.sh again from your Ferry." % (url, got, want))
with open(dest, "wb") as out:
    out.write(data)
' "$1" "$2" "$3" </dev/null
}

# run_tarball BASE VERSION SHA256 ARGS...: the agent's tarball from the Ferry at BASE, checked,
# unpacked to a temporary folder, and its install.sh run with ARGS (it records BASE as the source
# --update fetches from). Answers keep coming from this script's stdin.
run_tarball() {
  local base=$1 version=$2 sha=$3
  shift 3
  [[ $version =~ ^[A-Za-z0-9._-]+$ && $sha =~ ^[0-9a-fA-F]{64}$ ]] ||
    die "the agent version or SHA-256 from $base is not valid ($version, $sha)"
  local dir rc=0
  dir=$(mktemp -d "${TMPDIR:-/tmp}/ferry-agent.XXXXXX")
  say "Downloading the Ferry agent $version from $base ..." >&2
  if fetch_verified "$base/agent/ferry-agent-$version.tar.gz" "$sha" "$dir/agent.tar.gz"; then
    say "SHA-256 $sha: matches." >&2
    tar -xzf "$dir/agent.tar.gz" -C "$dir" --no-same-owner </dev/null ||
      rc=$?
    if [[ $rc == 0 && -f $dir/ferry-agent-$version/install.sh ]]; then
      FERRY_AGENT_FROM=$base SERVICE_ETC_DIR="$ETC_DIR" SERVICE_UNIT_DIR="$UNIT_DIR" \
        SERVICE_INSTALL_PREFIX="$PREFIX" SERVICE_STATE_ROOT="$STATE_ROOT" SERVICE_PYTHON="$PYTHON" \
        SYSTEMCTL="${SYSTEMCTL_CMD[*]}" bash "$dir/ferry-agent-$version/install.sh" "$@" || rc=$?
    else
      warn "the agent tarball from $base could not be unpacked"
      rc=1
    fi
  else
    rc=1
  fi
  rm -rf "$dir"
  return "$rc"
}

# --update of an agent installed from a Ferry: its newest tarball (GET /agent/latest.json).
update_from_ferry() {
  local base=$1 latest version sha
  say "Asking $base for the newest agent ..."
  latest=$("$PYTHON" -c '
import json, sys, urllib.request
try:
    with urllib.request.urlopen(sys.argv[1] + "/agent/latest.json", timeout=30) as response:
        latest = json.load(response)
    print(latest["version"], latest["sha256"])
except Exception as error:
    sys.exit("error: could not read %s/agent/latest.json: %s" % (sys.argv[1], error))
' "$base" </dev/null) || exit 1
  read -r version sha <<<"$latest"
  FERRY_UPDATE_PULLED=1 run_tarball "$base" "$version" "$sha" --update || exit $?
}

# Piped from a Ferry (or saved from one and run): no agent code beside this script, so it comes
# from the tarball this copy names. Piped, stdin was the script itself: answers come from the
# terminal when there is one, else from what followed the script.
run_served() {
  [[ -n $SERVED_BASE_URL ]] ||
    die "no agent code beside install.sh: run it from packages/agent, or fetch it from your Ferry (curl -fsSL <your Ferry>/agent/install.sh | sudo bash -s -- --dispatch)"
  check_prereqs
  if [[ -z $SCRIPT_SOURCE && ! -t 0 ]] && { : </dev/tty; } 2>/dev/null; then
    exec </dev/tty
  fi
  local pulled=
  [[ ${1-} == --update ]] && pulled=1
  FERRY_UPDATE_PULLED=$pulled run_tarball "$SERVED_BASE_URL" "$SERVED_VERSION" "$SERVED_SHA256" "$@" ||
    exit $?
}

main() {
  if [[ ${1-} == --dispatch || ${1-} == --update ]] && [[ ! -d $SCRIPT_DIR/ferry_agent || -z $SCRIPT_DIR ]]; then
    run_served "$@"
    return
  fi
  case ${1-} in
    --dispatch) cmd_dispatch ;;
    --list) cmd_list ;;
    --update) cmd_update ;;
    --remove) cmd_remove "${2-}" ;;
    -h | --help | "") usage ;;
    *)
      usage >&2
      exit 2
      ;;
  esac
}

main "$@"
