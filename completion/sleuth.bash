# bash completion for sleuth.  Commands and each command's long options
# come from `sleuth help` and `sleuth help COMMAND` (the same text as the
# manual pages), so they follow the installed binary; everything else
# completes as file names.
_sleuth()
{
	local cur=${COMP_WORDS[COMP_CWORD]} sleuth=${COMP_WORDS[0]}
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$("$sleuth" help 2>/dev/null |
			awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
			--help --version" -- "$cur"))
		return
	fi
	local cmd=${COMP_WORDS[1]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	# after `sleuth run ... --`, the program's own arguments
	if [ "$cmd" = run ]; then
		local i
		for ((i = 2; i < COMP_CWORD; i++)); do
			[ "${COMP_WORDS[i]}" = -- ] && { COMPREPLY=($(compgen -f -- "$cur")); return; }
		done
	fi
	case $cur in
	-*)
		COMPREPLY=($(compgen -W "$("$sleuth" help "$cmd" 2>/dev/null |
			grep -o -- '--[a-z][a-z0-9-]*' | sort -u)" -- "$cur"))
		;;
	*)
		case $cmd:$prev in
		help:*) COMPREPLY=($(compgen -W "$("$sleuth" help 2>/dev/null |
				awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')" \
				-- "$cur")) ;;
		*:--backend) COMPREPLY=($(compgen -W "auto perf timer" -- "$cur")) ;;
		*:--model) COMPREPLY=($(compgen -W "stall mlp linear" -- "$cur")) ;;
		*:--anchor) COMPREPLY=($(compgen -W "auto off" -- "$cur")) ;;
		*:--dither) COMPREPLY=($(compgen -W "8:1.60GHz 16:1.60GHz 32:1.60GHz" -- "$cur")) ;;
		*:--refine) COMPREPLY=($(compgen -f -W off -- "$cur")) ;;
		*:--confidence) COMPREPLY=($(compgen -W "95% 99% 90% off" -- "$cur")) ;;
		*:--scope) COMPREPLY=($(compgen -W "global phase" -- "$cur")) ;;
		*) COMPREPLY=($(compgen -f -- "$cur")) ;;
		esac
		;;
	esac
}
complete -o filenames -F _sleuth sleuth
