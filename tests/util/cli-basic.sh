# The dispatcher: help, version, unknown commands and options.
. "$SRCDIR/tests/lib.sh"

expect_ok -- "$SLEUTH" --version
"$SLEUTH" --version | grep -Eq '^sleuth [0-9]+\.[0-9]+' && ok || fail "--version output"
expect_ok -- "$SLEUTH" help
expect_exit 2 "not a sleuth command" -- "$SLEUTH" frobnicate
expect_exit 2 "usage: sleuth" -- "$SLEUTH"
expect_exit 2 "no command 'nope'" -- "$SLEUTH" help nope
# every listed command has help text and rejects an unknown flag with 2
for cmd in $("$SLEUTH" help | awk '/^Commands:/{f=1;next} f && /^  [a-z]/{print $1}'); do
	[ "$cmd" = help ] && continue  # help takes no flags
	"$SLEUTH" help "$cmd" | grep -q "usage: sleuth $cmd" && ok || fail "help $cmd"
	expect_exit 2 "unknown option '--no-such-flag'" -- "$SLEUTH" "$cmd" --no-such-flag
done
finish
