package completion

// bashFallback precedes cobra's bash completion script. That script needs
// two functions of the bash-completion package (_get_comp_words_by_ref,
// and _filedir for file and directory candidates); without the package it
// would print "command not found" on every Tab. These minimal versions are
// defined only when the package has not defined them: words are split on
// blanks only, so session keys (with ':') and --flag=value stay whole; file
// candidates ignore extension filters.
const bashFallback = `# Without the bash-completion package: minimal stand-ins for the two of its
# functions this script uses (defined only when the package is not loaded).
if ! declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
_get_comp_words_by_ref()
{
    local line="${COMP_LINE:0:COMP_POINT}"
    local -a w
    read -r -a w <<< "$line"
    if [[ -z $line || $line == *[[:space:]] ]]; then
        w+=("")
    fi
    words=("${w[@]}")
    cword=$(( ${#w[@]} - 1 ))
    cur=${w[cword]}
    prev=""
    if (( cword > 0 )); then
        prev=${w[cword-1]}
    fi
}
fi
if ! declare -F _filedir >/dev/null 2>&1; then
_filedir()
{
    local IFS=$'\n'
    if [[ ${1-} == -d ]]; then
        COMPREPLY=( $(compgen -d -- "$cur") )
    else
        COMPREPLY=( $(compgen -f -- "$cur") )
    fi
}
fi

`
