/*
 * The floor a libyaml-based trace reader cannot go below: libyaml's scanner
 * alone tokenizing a file (no events, no trees, no numbers converted).
 * bench/trace-fast.sh compares the replay's CPU time with it.
 * Usage: yaml-scan FILE   (prints the token count)
 */
#include <stdio.h>
#include <yaml.h>

int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
	yaml_parser_t p;
	yaml_token_t t;
	unsigned long long n = 0;
	if (!f || !yaml_parser_initialize(&p)) {
		fprintf(stderr, "usage: yaml-scan FILE\n");
		return 2;
	}
	yaml_parser_set_input_file(&p, f);
	for (;;) {
		if (!yaml_parser_scan(&p, &t)) {
			fprintf(stderr, "yaml-scan: %s\n", p.problem ? p.problem : "error");
			return 1;
		}
		int end = t.type == YAML_STREAM_END_TOKEN;
		yaml_token_delete(&t);
		n++;
		if (end)
			break;
	}
	yaml_parser_delete(&p);
	fclose(f);
	printf("%llu tokens\n", n);
	return 0;
}
