# `meson install` puts a manual page for sleuth and for every command it
# lists, each carrying that command's options (made from `sleuth help`),
# and the bash and zsh completion, which complete commands and options.
. "$SRCDIR/tests/lib.sh"

D=$T/inst
meson install -C "$BUILDDIR" --no-rebuild --quiet --destdir "$D" >"$T/install.log" 2>&1 ||
	{ fail "meson install: $(tail -5 "$T/install.log")"; exit 1; }
man1=$(find "$D" -type d -path '*/man/man1' | head -1)
[ -n "$man1" ] && [ -f "$man1/sleuth.1" ] && ok || { fail "no man1/sleuth.1 installed"; exit 1; }

cmds=$("$SLEUTH" help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ "$(echo "$cmds" | wc -l)" -ge 9 ] && ok || fail "sleuth help lists: $cmds"
for c in $cmds; do
	f=$man1/sleuth-$c.1
	if [ ! -f "$f" ]; then
		fail "no manual page for '$c' (add it to man/meson.build)"; continue
	fi
	grep -q "^\.TH SLEUTH-$(echo "$c" | tr a-z A-Z) 1" "$f" && ok || fail "$f: no .TH"
	grep -q "sleuth\\\\-$c(1)\|BR sleuth\\\\-$c (1)" "$man1/sleuth.1" && ok ||
		fail "sleuth(1) does not list $c"
	for o in $("$SLEUTH" help "$c" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
		grep -qF -- "$(printf '%s' "$o" | sed 's/-/\\-/g')" "$f" ||
			{ fail "sleuth-$c.1 lacks $o"; break; }
	done
	ok
done
# it renders, in 100 columns at most
if command -v man >/dev/null; then
	out=$(MANWIDTH=100 man -l "$man1/sleuth-schedule.1" 2>&1)
	printf '%s\n' "$out" | grep -q "^SYNOPSIS" && printf '%s\n' "$out" | grep -q -- "--max-slowdown" &&
		ok || fail "man -l sleuth-schedule.1: $out"
fi

# completion
bc=$(find "$D" -path '*/bash-completion/completions/sleuth')
zc=$(find "$D" -path '*/zsh/site-functions/_sleuth')
[ -f "$bc" ] && ok || fail "no bash completion installed"
[ -f "$zc" ] && ok || fail "no zsh completion installed"
complete_words() { # WORD...: what bash completes for the last word
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _sleuth
		printf "%s\n" "${COMPREPLY[@]}"' _ "$bc" "$@"
}
complete_words "$SLEUTH" sch | grep -qx schedule && ok || fail "bash: 'sch' does not complete to schedule"
complete_words "$SLEUTH" schedule --max-s | grep -qx -- --max-slowdown && ok ||
	fail "bash: 'schedule --max-s' does not complete to --max-slowdown"
complete_words "$SLEUTH" run --backend t | grep -qx timer && ok || fail "bash: --backend t"
if command -v zsh >/dev/null; then
	zsh -n "$zc" && ok || fail "zsh completion does not parse"
fi
finish
