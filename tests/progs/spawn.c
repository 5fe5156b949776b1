/*
 * Starts /bin/true with posix_spawn and waits for it: glibc's posix_spawn
 * uses clone(CLONE_VM | CLONE_VFORK), not fork, so this checks that the
 * virtual PMU sees such a child too (tests/vpmu/cli-vpmu-procs.sh).
 */
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

int main(void)
{
	pid_t pid;
	char *argv[] = {"/bin/true", 0};
	if (posix_spawn(&pid, "/bin/true", 0, 0, argv, environ))
		return 2;
	return waitpid(pid, 0, 0) == pid ? 0 : 3;
}
