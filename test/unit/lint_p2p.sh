#!/bin/sh
# Kernels talk to other ranks only through the point-to-point layer
# (algorithms/p2p.h), which sends on the communicator's private duplicate.
#   sh test/unit/lint_p2p.sh [DIR]    (default: algorithms)
# Fails, naming file and line, if a file under DIR other than the layer
# (and run.c, which hands a call to a kernel)
#   - calls an MPI point-to-point function (send, receive, probe: blocking,
#     nonblocking, persistent, matched), or
#   - names a communicator it could send on: the call's or a context's
#     ->comm / .comm (except the inner call on ctx->leader_comm that a
#     composition hands back to hyt_run_alg), MPI_COMM_WORLD, MPI_COMM_SELF,
#     a private duplicate (->priv, hyt_comm_priv) or a context lookup.
# Comments are ignored.  Before checking DIR it checks itself on a file
# with one violation of each kind, so a broken pattern cannot pass quietly.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$top/algorithms}

# file -> "file:line: offending text" for every violation
scan() {
    perl -e '
        my $bad = 0;
        for my $f (@ARGV) {
            open(my $fh, "<", $f) or die "lint_p2p: cannot read $f\n";
            local $/; my $s = <$fh>; close $fh;
            # blank out comments and string literals, keeping line numbers
            $s =~ s{/\*(.*?)\*/}{"\n" x ($1 =~ tr/\n//)}gse;
            $s =~ s{//[^\n]*}{}g;
            $s =~ s{"(?:[^"\\\n]|\\.)*"}{""}g;
            my $n = 0;
            for my $l (split /\n/, $s, -1) {
                $n++;
                my @why;
                push @why, "MPI point-to-point call $1 (use hyt_p2p_* from algorithms/p2p.h)"
                    while $l =~ /\b(P?MPI_\w*(?:send|recv|probe)\w*)\s*\(/gi;
                (my $m = $l) =~ s/\.comm\s*=\s*ctx->leader_comm\b//g;
                push @why, "communicator $1 (kernels get none: hyt_p2p_* sends on the private duplicate)"
                    while $m =~ /((?:->|\.)comm\b|\bMPI_COMM_(?:WORLD|SELF)\b|->priv\b|\bhyt_comm_(?:priv|get)\b)/g;
                for (@why) { print "$f:$n: $_\n"; $bad = 1; }
            }
        }
        exit $bad;' "$@"
}

# self-check: every kind of violation is found, clean code is not
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/bad.c" <<'EOC'
/* PMPI_Send(x) in a comment is fine, and so is "MPI_COMM_WORLD" in a string */
static int f(const hyt_args_t *a, hyt_comm_t *ctx, MPI_Request *r)
{
    const char *s = "a->comm";
    hyt_args_t in = {.comm = ctx->leader_comm};
    PMPI_Send(a->rbuf, 1, MPI_INT, 0, 0, x);
    PMPI_Irecv(a->rbuf, 1, MPI_INT, 0, 0, x, r);
    MPI_Sendrecv(0, 0, MPI_INT, 0, 0, 0, 0, MPI_INT, 0, 0, x, 0);
    PMPI_Iprobe(0, 0, x, 0, 0);
    PMPI_Bcast(a->rbuf, 1, MPI_INT, 0, a->comm);
    PMPI_Bcast(a->rbuf, 1, MPI_INT, 0, MPI_COMM_SELF);
    PMPI_Bcast(a->rbuf, 1, MPI_INT, 0, hyt_comm_priv(ctx));
    return PMPI_Bcast(a->rbuf, 1, MPI_INT, 0, ctx->node_comm);
}
EOC
out=$(scan "$tmp/bad.c")
want="6 7 8 9 10 11 12"
got=$(echo "$out" | sed -n 's/^[^:]*:\([0-9]*\):.*/\1/p' | sort -un | tr '\n' ' ' | sed 's/ $//')
if [ "$got" != "$want" ]; then
    echo "lint_p2p: self-check failed: violations found on lines \"$got\", expected \"$want\":"
    echo "$out"
    exit 1
fi

# run.c runs a kernel (context lookup, error handler): it is no kernel
files=$(find "$dir" -name '*.[ch]' ! -name p2p.c ! -name p2p.h ! -name run.c | sort)
[ -n "$files" ] || { echo "lint_p2p: no source files under $dir"; exit 1; }
n=$(echo "$files" | wc -l)
if ! scan $files; then
    echo "lint_p2p: FAIL: kernels must use the point-to-point layer (algorithms/p2p.h)"
    exit 1
fi
echo "lint_p2p: $n files under $dir use only the point-to-point layer"
