#!/bin/bash
# Programs that start other processes, on the virtual PMU.  Valgrind does
# not follow an execve (children are not traced) and the tool sends nothing
# for a forked child, so a profile of such a run would hold a fraction of
# the work, silently (a shell's start-up where the work was bzip2's).  The
# run is refused with one line naming what was exec'd or forked and the
# fix, and no profile is written; an execve that fails (execvp trying PATH
# entries, a missing program) is not refused.  Threads are not processes:
# cli-vpmu.sh checks them.  Skipped (77) without valgrind or its tool.
. "$SRCDIR/tests/lib.sh"
RUN=(run -q --backend vpmu --interval 5M --sample-period 2003)
need_vpmu

# exec: env runs another program in its place
expect_exit 1 "^sleuth: env exec'd '/bin/true', which the virtual PMU does not follow.*run the program that does the work itself.*not through a shell or wrapper" -- \
	"$SLEUTH" "${RUN[@]}" -o "$T/exec.prof" -- env /bin/true
expect_absent "$T/exec.prof"

# exec through a "#!" script: its interpreter runs under the vPMU, the
# program it execs (and its arguments) is named, and so is the script
printf '#!/bin/sh\nexec /bin/true one two\n' > "$T/wrap"
chmod +x "$T/wrap"
expect_exit 1 "exec'd '/bin/true one two'.*not through the script $T/wrap\$" -- \
	"$SLEUTH" "${RUN[@]}" -o "$T/script.prof" -- "$T/wrap"
expect_absent "$T/script.prof"

# fork: a shell pipeline's commands run in children
expect_exit 1 "^sleuth: sh forked 2 child processes, which the virtual PMU does not follow.*each command on its own" -- \
	"$SLEUTH" "${RUN[@]}" -o "$T/fork.prof" -- sh -c '/bin/true | /bin/true'
expect_absent "$T/fork.prof"

# posix_spawn: a child through clone(CLONE_VM | CLONE_VFORK), not fork
expect_exit 1 "^sleuth: .*spawn forked 1 child process, .*miss its work" -- \
	"$SLEUTH" "${RUN[@]}" -o "$T/spawn.prof" -- "$BUILDDIR/tests/progs/spawn"
expect_absent "$T/spawn.prof"

# a failed execve is not a refusal: env's status is passed on, the profile
# of what ran is written
expect_status 127 -- "$SLEUTH" "${RUN[@]}" -o "$T/failed.prof" -- env /nonexistent/sleuth-none
[ -s "$T/failed.prof" ] && ok || fail "a failed execve: no profile written"
finish
