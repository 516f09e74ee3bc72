# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# bash completion for ibtick(8) and the tools ibtick-pub, -sub, -gen and
# -md.  Installed by "make install" as
# $(PREFIX)/share/bash-completion/completions/ibtick, with links to it
# under the tools' names; to try it from the
# source tree:  . scripts/ibtick-completion.bash
#
# Words may be abbreviated as ibtick itself accepts them ("ibtick f a"
# completes like "ibtick feed add").  Feed names come from the running
# module (ibtick -j feed show), device names from /sys/class/infiniband,
# interface names from /sys/class/net; nothing here needs jq.

# Reply with the words of $1 (blank separated) that start with $cur.
_ibtick_reply()
{
	mapfile -t COMPREPLY < <(compgen -W "$1" -- "$cur")
}

# The full word of the blank separated list $2 that $1 abbreviates: as
# ibtick (and ip) decide, the first word of the list it is a prefix of.
_ibtick_expand()
{
	local word=$1 w

	[[ -n $word ]] || return 0
	for w in $2; do
		if [[ $w == "$word"* ]]; then
			printf '%s\n' "$w"
			return 0
		fi
	done
	return 0
}

# Names of the feeds the module has now, one a line.
_ibtick_feeds()
{
	"$_ibtick_cmd" -j feed show 2>/dev/null |
		grep -o '"name"[[:space:]]*:[[:space:]]*"[^"]*"' |
		sed 's/^"name"[[:space:]]*:[[:space:]]*"\(.*\)"$/\1/'
}

_ibtick_devs()
{
	local d

	for d in /sys/class/infiniband/*; do
		[[ -e $d ]] && printf '%s\n' "${d##*/}"
	done
}

_ibtick_netdevs()
{
	local d

	for d in /sys/class/net/*; do
		[[ -e $d ]] && printf '%s\n' "${d##*/}"
	done
}

_ibtick_cpus()
{
	local d

	for d in /sys/devices/system/cpu/cpu[0-9]*; do
		[[ -e $d ]] && printf '%s\n' "${d##*/cpu}"
	done
}

# Keywords of $1 (blank separated) not yet given among the words after
# index $2 of the command line.
_ibtick_unused()
{
	local kw used i out=""

	for kw in $1; do
		used=0
		for ((i = $2; i < cword; i++)); do
			if [[ ${words[i]} == "$kw" ]]; then
				used=1
				break
			fi
		done
		((used)) || out+="$kw "
	done
	printf '%s\n' "$out"
}

# Completion of "feed add|set NAME ..." from word index $2 on; $1 is the
# verb.
_ibtick_feed_args()
{
	local verb=$1 first=$2 kws busy=0 i

	# without bash-completion, readline splits USER:GROUP at the colon
	if ((cword >= 2)) && [[ $cur == : && ${words[cword - 2]} == owner ]]; then
		cur=""
		mapfile -t COMPREPLY < <(compgen -g)
		return 0
	fi
	if ((cword >= 3)) && [[ $prev == : && ${words[cword - 3]} == owner ]]; then
		mapfile -t COMPREPLY < <(compgen -g -- "$cur")
		return 0
	fi

	case $prev in
	group|port|comp-vector)
		return 0 ;;
	netdev)
		_ibtick_reply "$(_ibtick_netdevs)"
		return 0 ;;
	slots)
		_ibtick_reply "64 256 1024 4096 16384 65536 262144 1048576"
		return 0 ;;
	slot-size)
		_ibtick_reply "64 128 256 512 1024 2048 4096 8192"
		return 0 ;;
	poll)
		_ibtick_reply "irq busy"
		return 0 ;;
	cpu)
		_ibtick_reply "$(_ibtick_cpus)"
		return 0 ;;
	loopback)
		_ibtick_reply "socket deny"
		return 0 ;;
	member)
		_ibtick_reply "send-only full"
		return 0 ;;
	owner)
		if [[ $cur == *:* ]]; then
			# USER:GROUP kept in one word (_init_completion -n :)
			mapfile -t COMPREPLY < <(compgen -g -P "${cur%%:*}:" -- "${cur#*:}")
			if declare -F __ltrim_colon_completions >/dev/null 2>&1; then
				__ltrim_colon_completions "$cur"
			fi
		else
			mapfile -t COMPREPLY < <(compgen -u -- "$cur")
		fi
		return 0 ;;
	mode)
		_ibtick_reply "0644 0664 0640 0660 0600 0444"
		return 0 ;;
	esac

	# an arbitrated feed: rail GROUP PORT NETDEV..., its sequence field
	if [[ $verb == add && ${words[first]} == arbitrate ]] && ((cword > first)); then
		if ((cword >= 3)) && [[ ${words[cword - 3]} == rail ]]; then
			_ibtick_reply "$(_ibtick_netdevs)"
			return 0
		fi
		if ((cword >= 2)) && [[ ${words[cword - 2]} == rail ]]; then
			return 0	# the port
		fi
		case $prev in
		rail|off|window-us|window-ticks|reset-at)
			return 0 ;;
		seq-field)
			_ibtick_reply "publisher off"
			return 0 ;;
		width)
			_ibtick_reply "4 8"
			return 0 ;;
		esac
		if ((cword >= 2)) && [[ ${words[cword - 2]} == off ]]; then
			_ibtick_reply "width"
			return 0
		fi
		kws="seq-field window-us window-ticks reset-at slots slot-size comp-vector owner mode"
		if ((cword >= 2)) && [[ ${words[cword - 2]} == width ]]; then
			kws="le be $kws"
		fi
		# rails may repeat
		_ibtick_reply "rail $(_ibtick_unused "$kws" "$first")"
		return 0
	fi
	if [[ $verb == add ]]; then
		kws="group port netdev slots slot-size poll comp-vector loopback owner mode member"
		((cword == first)) && kws="arbitrate $kws"
	else
		kws="poll loopback owner mode slots slot-size comp-vector"
	fi
	# "cpu" only right after "poll busy"
	for ((i = first; i < cword - 1; i++)); do
		if [[ ${words[i]} == poll && ${words[i + 1]} == busy ]]; then
			busy=1
		fi
	done
	((busy)) && kws+=" cpu"
	_ibtick_reply "$(_ibtick_unused "$kws" "$first")"
}

_ibtick()
{
	local cur prev words cword
	local _ibtick_cmd=${1:-ibtick}
	# in the order ibtick matches abbreviations: "s" is sock, "d" dev
	local objects="dev feed sock conn stats monitor doctor relay help"
	local gopts="-j -p -s -d -b -f -V -h --json --pretty --statistics --details --batch --force --version --help"
	local i obj="" oi=0 verb="" vi=0 batch=0

	if declare -F _init_completion >/dev/null 2>&1; then
		_init_completion -n : || return
	else
		COMPREPLY=()
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD - 1]}
	fi

	# Global options come first; -b takes a file.
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		-b|--batch)
			batch=1
			((i++)) ;;
		-*)
			;;
		*)
			obj=$(_ibtick_expand "${words[i]}" "$objects")
			oi=$i
			break ;;
		esac
	done

	if [[ -z $obj && $oi -eq 0 ]]; then
		case $prev in
		-b|--batch)
			if declare -F _filedir >/dev/null 2>&1; then
				_filedir
			else
				compopt -o filenames 2>/dev/null
				mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			fi
			return 0 ;;
		-V|--version|-h|--help)
			return 0 ;;
		esac
		if [[ $cur == -* ]]; then
			_ibtick_reply "$gopts"
		elif ((!batch)); then
			# with -b FILE the commands come from the file
			_ibtick_reply "$objects"
		fi
		return 0
	fi
	[[ -n $obj ]] || return 0

	# The verb, when the object has verbs and one is typed already.
	if ((oi + 1 < cword)); then
		vi=$((oi + 1))
		case $obj in
		dev)	verb=$(_ibtick_expand "${words[vi]}" "show help") ;;
		feed)	verb=$(_ibtick_expand "${words[vi]}" "show list add set del delete save help") ;;
		sock)	verb=$(_ibtick_expand "${words[vi]}" "show list help") ;;
		conn)	verb=$(_ibtick_expand "${words[vi]}" "show list rule help") ;;
		stats)	verb=$(_ibtick_expand "${words[vi]}" "show reset help") ;;
		esac
		case $verb in
		list)	verb=show ;;
		delete)	verb=del ;;
		esac
	fi

	case $obj in
	dev)
		if ((cword == oi + 1)); then
			_ibtick_reply "show help"
		elif [[ $verb == show ]] && ((cword == vi + 1)); then
			_ibtick_reply "$(_ibtick_devs)"
		fi ;;
	feed)
		if ((cword == oi + 1)); then
			_ibtick_reply "show add set del save help"
			return 0
		fi
		case $verb in
		add)
			# the new feed's name is free text
			((cword > vi + 1)) && _ibtick_feed_args add $((vi + 2)) ;;
		set)
			if ((cword == vi + 1)); then
				_ibtick_reply "$(_ibtick_feeds)"
			else
				_ibtick_feed_args set $((vi + 2))
			fi ;;
		del|show)
			((cword == vi + 1)) && _ibtick_reply "$(_ibtick_feeds)" ;;
		esac ;;
	sock)
		if ((cword == oi + 1)); then
			_ibtick_reply "show help"
		elif [[ $verb == show ]]; then
			case $prev in
			feed)	_ibtick_reply "$(_ibtick_feeds)" ;;
			pid)	;;
			*)	_ibtick_reply "$(_ibtick_unused "feed pid" $((vi + 1)))" ;;
			esac
		fi ;;
	conn)
		if ((cword == oi + 1)); then
			_ibtick_reply "show rule help"
		elif [[ $verb == rule ]]; then
			# conn rule VERB PORT[-PORT] [ owner ... ] [ group ... ] [ mode ... ]
			local rverb=""
			((cword > vi + 1)) &&
				rverb=$(_ibtick_expand "${words[vi + 1]}" "show list add del delete save help")
			if ((cword == vi + 1)); then
				_ibtick_reply "show add del save help"
			elif [[ $rverb == add ]] && ((cword > vi + 2)); then
				case $prev in
				owner|mode)	;;
				group)	_ibtick_reply "$(compgen -g 2>/dev/null | xargs)" ;;
				*)	_ibtick_reply "$(_ibtick_unused "owner group mode" $((vi + 3)))" ;;
				esac
			fi
		elif [[ $verb == show ]]; then
			case $prev in
			pid)	;;
			*)	_ibtick_reply "$(_ibtick_unused "pid" $((vi + 1)))" ;;
			esac
		fi ;;
	stats)
		case $prev in
		interval)
			return 0 ;;
		esac
		if [[ $verb == reset || $verb == help ]]; then
			return 0
		fi
		local skw="dev feed sock interval" seen=0
		for ((i = oi + 1; i < cword; i++)); do
			case ${words[i]} in
			dev|feed|sock)	seen=1 ;;
			esac
		done
		((seen)) && skw="interval"
		if ((cword == oi + 1)); then
			_ibtick_reply "show reset help $skw"
		else
			_ibtick_reply "$(_ibtick_unused "$skw" $((oi + 1)))"
		fi ;;
	monitor)
		((cword == oi + 1)) && _ibtick_reply "all dev feed sock conn" ;;
	doctor)
		case $prev in
		--app-cpus|--interval)
			return 0 ;;
		esac
		_ibtick_reply "$(_ibtick_unused "--app-cpus --interval --fast" $((oi + 1)))" ;;
	relay)
		# the words of ibtick-relay (below)
		if ((cword == oi + 1)); then
			_ibtick_reply "udp-to-feed feed-to-udp"
		elif [[ $prev == --from || $prev == --to ]]; then
			_ibtick_rule_netdev
		elif [[ $cur == -* ]]; then
			case ${words[oi + 1]} in
			udp-to-feed)
				_ibtick_reply "--from --to --rcvbuf --stats-interval" ;;
			feed-to-udp)
				_ibtick_reply "--from --to --slots --slot-size --loopback --ttl --multicast-loop --stats-interval" ;;
			esac
		fi ;;
	esac
	return 0
}

complete -F _ibtick ibtick

# ---- the tools: ibtick-pub, ibtick-sub, ibtick-gen, ibtick-md, ibtick-run.  Installed
# as links to this file under their own names, so that bash-completion
# finds it when one of them is first completed.

# The words and the position of the one completed, with or without
# bash-completion.
_ibtick_tool_init()
{
	if declare -F _init_completion >/dev/null 2>&1; then
		_init_completion || return 1
	else
		COMPREPLY=()
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD - 1]}
	fi
	return 0
}

_ibtick_files()
{
	if declare -F _filedir >/dev/null 2>&1; then
		_filedir
	else
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	fi
}

# _ibtick_tool_opts OPTS_WITH_ARG OPTS_WITHOUT: options of a getopt tool; after
# -i an interface name; other option values are free text.  Positional
# words (GROUP PORT) have no completion.
_ibtick_tool_opts()
{
	local witharg=$1 noarg=$2 o

	for o in $witharg; do
		if [[ $prev == "$o" ]]; then
			[[ $o == -i ]] && _ibtick_reply "$(_ibtick_netdevs)"
			return 0
		fi
	done
	[[ $cur == -* ]] && _ibtick_reply "$witharg $noarg"
	return 0
}

_ibtick_pub()
{
	local cur prev words cword
	_ibtick_tool_init || return
	_ibtick_tool_opts "-i -n -s -r" ""
}

_ibtick_sub()
{
	local cur prev words cword
	_ibtick_tool_init || return
	_ibtick_tool_opts "-i -n -t -S -Z -d" "-l -v -j"
}

_ibtick_gen()
{
	local cur prev words cword
	_ibtick_tool_init || return
	case $prev in
	-o|-d)
		_ibtick_files
		return 0 ;;
	esac
	_ibtick_tool_opts "-s -n -r -c -o -d" "-j -h"
}

_ibtick_md()
{
	local cur prev words cword
	_ibtick_tool_init || return
	if ((cword == 1)); then
		_ibtick_reply "publish read"
		return 0
	fi
	case ${words[1]} in
	publish)
		_ibtick_tool_opts "-i -x -l" ""
		# the stream file is the first word that is not an option
		if [[ $cur != -* && -z ${COMPREPLY[*]} ]] && ! [[ $prev == -[ixl] ]]; then
			local i nonopt=0
			for ((i = 2; i < cword; i++)); do
				case ${words[i]} in
				-[ixl])	((i++)) ;;
				-*)	;;
				*)	nonopt=$((nonopt + 1)) ;;
				esac
			done
			((nonopt == 0)) && _ibtick_files
		fi ;;
	read)
		case $prev in
		-k)
			_ibtick_reply "mapped epoll recvmsg busy"
			return 0 ;;
		-o)
			_ibtick_files
			return 0 ;;
		esac
		_ibtick_tool_opts "-i -k -o -t" "" ;;
	esac
	return 0
}

# A GROUP:PORT@IFNAME word being typed: the interface after the '@'.
_ibtick_rule_netdev()
{
	local pre n

	[[ $cur == *@* ]] || return 0
	pre=${cur%@*}@
	for n in $(_ibtick_netdevs); do
		[[ $pre$n == "$cur"* ]] && COMPREPLY+=("$pre$n")
	done
}

# ibtick-run [-g RULE]... [-f CONFIG] [-b USEC [-p]] [-v] -- CMD [ARGS...]: after -g the
# interface of GROUP:PORT@IFNAME, after -f a file, after -- the command and
# its own completion (bash-completion's _command_offset), else commands.
_ibtick_run()
{
	local cur prev words cword i
	_ibtick_tool_init || return
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--)
			if declare -F _command_offset >/dev/null 2>&1; then
				_command_offset $((i + 1))
			elif ((cword == i + 1)); then
				mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
			else
				_ibtick_files
			fi
			return 0 ;;
		-g|-f|-b)	((i++)) ;;
		esac
	done
	case $prev in
	-b)
		return 0 ;;
	-f)
		_ibtick_files
		return 0 ;;
	-g)
		_ibtick_rule_netdev
		return 0 ;;
	esac
	[[ $cur == -* ]] && _ibtick_reply "-g -f -b -p -v -V -h --"
	return 0
}

# ibtick-perf MODE [options] GROUP PORT: the mode first; after -k the
# reader kinds (lat takes a comma-separated list of paths, arb its own);
# after -L/-I/--rail-b/--peer-rail-b an interface, after -d (perftest's) an RDMA device; after -H and --raw a
# file.
_ibtick_perf()
{
	local cur prev words cword kinds pre k
	_ibtick_tool_init || return
	if ((cword == 1)); then
		_ibtick_reply "lat oneway rate fanout arb"
		return 0
	fi
	case $prev in
	-L|--netdev|-I|--peer-netdev|--rail-b|--peer-rail-b)
		_ibtick_reply "$(_ibtick_netdevs)"
		return 0 ;;
	-d|--ib-dev)
		_ibtick_reply "$(_ibtick_devs)"
		return 0 ;;
	-k)
		kinds="mapped epoll recvmsg busy"
		[[ ${words[1]} == lat ]] &&
			kinds="$kinds kpoll busy-prefer floor udp udp-spin run run-spin spin-1g recvmsg-1g
				inet inet-spin inet-run inet-run-spin spin-1g-ev run-spin-ev inet-run-spin-ev
				floor-rc conn conn-spin conn-map tcp tcp-spin"
		[[ ${words[1]} == arb ]] && kinds="arb rail-a rail-a-b arb-cost rail-a-cost"
		pre=
		[[ $cur == *,* ]] && pre=${cur%,*},
		for k in $kinds; do
			[[ $pre$k == "$cur"* ]] && COMPREPLY+=("$pre$k")
		done
		return 0 ;;
	-H|--hist|--raw)
		_ibtick_files
		return 0 ;;
	-B|--busy-us|-n|-w|-s|-S|-r|-N|-c|-C|-i|--ib-port|-x|--gid-index)
		return 0 ;;
	esac
	[[ $cur == -* ]] &&
		_ibtick_reply "-L -d -i -x -I -e -k -B -n -w -s -S -a -r -N -c -C -j -H --netdev --ib-dev --ib-port --gid-index --peer-netdev --hist --compare --raw --counts --busy-us --rail-b --peer-rail-b --peer -h"
	return 0
}

# ibtick-relay udp-to-feed|feed-to-udp --from RULE --to RULE [options]: the
# direction first; after --from/--to the interface of GROUP:PORT@IFNAME.
_ibtick_relay()
{
	local cur prev words cword
	_ibtick_tool_init || return
	if ((cword == 1)); then
		_ibtick_reply "udp-to-feed feed-to-udp"
		return 0
	fi
	case $prev in
	--from|--to)
		_ibtick_rule_netdev
		return 0 ;;
	--rcvbuf|--stats-interval|--slots|--slot-size|--ttl)
		return 0 ;;
	esac
	if [[ $cur == -* ]]; then
		case ${words[1]} in
		udp-to-feed)
			_ibtick_reply "--from --to --rcvbuf --stats-interval -j" ;;
		feed-to-udp)
			_ibtick_reply "--from --to --slots --slot-size --loopback --ttl --multicast-loop --stats-interval -j" ;;
		esac
	fi
	return 0
}

complete -F _ibtick_pub ibtick-pub
complete -F _ibtick_sub ibtick-sub
complete -F _ibtick_run ibtick-run
complete -F _ibtick_gen ibtick-gen
complete -F _ibtick_md ibtick-md
complete -F _ibtick_perf ibtick-perf
complete -F _ibtick_relay ibtick-relay
