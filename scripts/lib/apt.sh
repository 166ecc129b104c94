# Installing Debian packages from the scripts: sourced (not run) by install-deps.sh,
# install-eval-sources.sh, benchmark.sh and ci-arm64.sh.
#   source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"

# apt_installed PACKAGE: whether dpkg has PACKAGE installed.
apt_installed()
{
    dpkg-query -W -f='${Status}' "$1" 2> /dev/null | grep -q "install ok installed"
}

# apt_missing PACKAGE...: the packages dpkg does not have installed, one a line:
#   mapfile -t missing < <(apt_missing "${packages[@]}")
apt_missing()
{
    local package
    for package in "$@"; do
        apt_installed "$package" || printf '%s\n' "$package"
    done
}

# apt_install [--update] [--no-recommends] PACKAGE...: installs the packages with apt-get, as root
# or through sudo, without questions, waiting up to 10 minutes for another apt or dpkg to finish.
# --update: refresh the package lists first; --no-recommends: only the packages and what they depend on.
apt_install()
{
    local update=0 options=(-y -q -o DPkg::Lock::Timeout=600) sudo_cmd=()
    while [[ $# -gt 0 && $1 == --* ]]; do
        case $1 in
            --update) update=1 ;;
            --no-recommends) options+=(--no-install-recommends) ;;
            *) echo "apt_install: unknown option $1" >&2; return 2 ;;
        esac
        shift
    done
    [[ $# -gt 0 ]] || return 0
    [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
    if ((update)); then
        "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q -o DPkg::Lock::Timeout=600
    fi
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install "${options[@]}" "$@"
}
