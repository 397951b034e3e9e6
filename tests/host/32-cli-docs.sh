#!/bin/bash
# Every long option a subcommand accepts is named by its --help, by its
# section of the man page and by the bash completion. The options are read
# from the getopt tables themselves (struct option arrays: record_long and
# top_long in daemon/cli/options.c, every table of daemon/cli/NAME.c for NAME),
# so an option added to a table without its documentation fails here. The
# completion is run, not read: _skyprof is called for "skyprof CMD -" with
# bash-completion's helpers stubbed.
# shellcheck source=tests/host/cli-lib.bash
. "$(dirname "$0")/cli-lib.bash"
MAN=$top/daemon/man/skyprof.8
COMPLETION=$top/daemon/completion/skyprof.bash-completion
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# table_options FILE [TABLE]: the long names of FILE's struct option tables
# (only TABLE's when given), one per line
table_options() {
	awk -v want="${2:-}" '
		/struct option [A-Za-z_0-9]+\[\] *= *\{/ {
			name = $0
			sub(/.*struct option /, "", name)
			sub(/\[.*/, "", name)
			on = (want == "" || name == want)
			next
		}
		on && /^[ \t]*\};/ { on = 0 }
		on {
			while (match($0, /\{ *"[^"]+"/)) {
				o = substr($0, RSTART, RLENGTH)
				sub(/\{ *"/, "", o)
				sub(/"$/, "", o)
				print o
				$0 = substr($0, RSTART + RLENGTH)
			}
		}' "$1" | sort -u
}

# man_section CMD: its .SS section, with the roff escapes taken out
man_section() {
	awk -v cmd="$1" '
		/^\.S[HS] / { on = ($0 ~ "^\\.SS skyprof " cmd "( |$)") }
		on' "$MAN" | sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\(em/--/g'
}

# completion CMD: what completing "skyprof CMD -" offers
completion() {
	bash -c '
		_init_completion() {
			words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD
			cur=${COMP_WORDS[cword]}; prev=${COMP_WORDS[cword - 1]}
		}
		_filedir() { :; }
		_command_offset() { :; }
		complete() { :; }
		. "$1" || exit 1
		COMP_WORDS=(skyprof "$2" -)
		COMP_CWORD=2
		_skyprof
		printf "%s\n" "${COMPREPLY[@]}"' sh "$COMPLETION" "$1" | sed 's/=$//'
}

# has_option TEXTFILE NAME: --NAME appears as a whole option name
has_option() {
	grep -Eq -- "(^|[^a-z0-9-])--$2([^a-z0-9-]|\$)" "$1"
}

for cmd in record top report status agent; do
	case $cmd in
	record) opts=$(table_options "$top/daemon/cli/options.c" record_long) ;;
	top) opts=$(table_options "$top/daemon/cli/options.c" top_long) ;;
	*) opts=$(table_options "$top/daemon/cli/$cmd.c") ;;
	esac
	# a table renamed or moved: this test must learn of it, not pass
	if [ -z "$opts" ]; then
		echo "FAIL $cmd: no getopt table found"
		fails=$((fails + 1))
		continue
	fi
	"$SKYPROF" "$cmd" --help >"$tmp/help" 2>&1
	man_section "$cmd" >"$tmp/man"
	[ -s "$tmp/man" ] || echo "(no man section for $cmd)" >"$tmp/man"
	completion "$cmd" >"$tmp/comp"
	missing=
	for o in $opts; do
		has_option "$tmp/help" "$o" || missing+=" --help:--$o"
		# the man page says once that every command has its own --help
		[ "$o" = help ] || has_option "$tmp/man" "$o" || missing+=" man:--$o"
		grep -qx -- "--$o" "$tmp/comp" || missing+=" completion:--$o"
	done
	if [ -z "$missing" ]; then
		echo "ok   $cmd: $(echo $opts | wc -w) long options in --help, man page and completion"
	else
		echo "FAIL $cmd:$missing"
		fails=$((fails + 1))
	fi
done

[ $fails = 0 ] && echo "cli docs: all checks passed" || { echo "$fails failed"; exit 1; }
