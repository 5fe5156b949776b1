/*
 * The vPMU as a Valgrind tool: instruments every superblock so that the
 * virtual core (vpmu-uarch.c) sees each retired instruction, data access
 * and conditional branch, cuts intervals by retired instructions, samples
 * every Nth conditional branch as PEBS would, and writes each interval's
 * counts and samples to the pipe the host backend reads (vpmu-wire.h).
 *
 * The tool counts every event of its table in every interval (counting
 * costs nothing more: the caches and predictor must run for the timing
 * anyway); the host backend reveals only the events the multiplexer
 * programmed.  That keeps the pipe one-way, so the guest never waits on
 * the host.  Valgrind runs the client's threads one at a time: counts are
 * per process.  A forked child stays silent (its pid differs); the parent
 * reports the fork, and an execve (which leaves Valgrind: children are not
 * traced) is reported before it happens, so that the host can refuse a
 * profile that would miss the work done there.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

#include "vpmu-uarch.h"

#define MAX_SAMPLES 65536
#define MAX_TMPS 8192

static Long clo_fd = -1;
static Long clo_interval = 100000000;
static Long clo_period = 20011;
static vpmu_cfg cfg = {
	.width = 4, .rob = 128, .mshr = 10, .misp_penalty = 17, .gshare_bits = 14,
	.l1 = {32768, 8, 64}, .l2 = {262144, 8, 64}, .llc = {8388608, 16, 64},
	.l2_cycles = 10, .llc_cycles = 14, .llc_uncore_ps = 11000, .dram_ps = 65000,
	.dram_mbps = 12800, .prefetch_degree = 2, .freq_mhz = 2660,
};

static vpmu_core core;
static ULong next_boundary;
static ULong since_sample;
static ULong *samples;
static UInt n_samples;
static ULong lost;
static Int my_pid;
static Bool dead; /* the pipe failed: stop writing */

/* ---- the pipe ----------------------------------------------------------- */

static void put(const void *buf, UInt len)
{
	const UChar *p = buf;
	while (!dead && len) {
		Int w = VG_(write)((Int)clo_fd, p, (Int)len);
		if (w <= 0) {
			dead = True;
			break;
		}
		p += w;
		len -= (UInt)w;
	}
}

static Bool writer(void)
{
	return !dead && VG_(getpid)() == my_pid;
}

static void emit_interval(void)
{
	struct vpmu_interval iv;
	vpmu_interval_take(&core, &iv);
	iv.lost = lost;
	if (writer()) {
		struct vpmu_head h = {VPMU_MAGIC, VPMU_REC_INTERVAL,
				      (UInt)(sizeof iv + n_samples * sizeof(ULong)), n_samples};
		put(&h, sizeof h);
		put(&iv, sizeof iv);
		put(samples, n_samples * (UInt)sizeof(ULong));
	}
	n_samples = 0;
	lost = 0;
}

static void boundary(void)
{
	if (core.icount < next_boundary)
		return;
	emit_interval();
	next_boundary += (ULong)clo_interval;
	if (next_boundary <= core.icount)
		next_boundary = core.icount + (ULong)clo_interval;
}

/* ---- run-time helpers ----------------------------------------------------- */

/* A segment's static figures, packed into one word (see pack()). */
#define P_N(p) ((p) & 0xffff)
#define P_FP(p) (((p) >> 16) & 0xfff)
#define P_OPS(p) (((p) >> 28) & 0xffff)
#define P_DEP(p) (((p) >> 44) & 0xfff)
#define P_MD(p) (((p) >> 56) & 0x7f)
#define P_INV(p) ((p) >> 63)

static void account(ULong p)
{
	core.icount += P_N(p);
	core.ev[VPMU_EV_FP_OPS] += P_FP(p);
	core.act[VPMU_ACT_IR_OPS] += P_OPS(p);
	core.act[VPMU_ACT_MULDIV] += P_MD(p);
	core.core_units += (double)P_DEP(p);
}

static VG_REGPARM(1) void h_flush(ULong p)
{
	account(p);
	boundary();
}

static VG_REGPARM(3) void h_branch(Addr pc, ULong guard, ULong p)
{
	account(p);
	vpmu_branch_outcome(&core, pc, (Bool)((guard & 1) ^ P_INV(p)));
	if (++since_sample >= (ULong)clo_period) {
		since_sample = 0;
		if (n_samples < MAX_SAMPLES)
			samples[n_samples++] = pc;
		else
			lost++;
	}
	boundary();
}

static VG_REGPARM(3) void h_load(Addr a, ULong sz_idx, ULong val)
{
	vpmu_access(&core, a, (UInt)(sz_idx & 0xffff), False, core.icount + (sz_idx >> 16), val);
}

static VG_REGPARM(2) void h_store(Addr a, ULong sz_idx)
{
	vpmu_access(&core, a, (UInt)(sz_idx & 0xffff), True, core.icount + (sz_idx >> 16), 0);
}

/* ---- instrumentation ------------------------------------------------------ */

/* What the instructions since the last flush point contribute. */
typedef struct {
	UInt n, fp, ops, dep16, md;
} seg;

static ULong cap(UInt v, UInt max)
{
	return v > max ? max : v;
}

static ULong pack(const seg *s, Bool inv)
{
	return cap(s->n, 0xffff) | cap(s->fp, 0xfff) << 16 | cap(s->ops, 0xffff) << 28 |
	       cap(s->dep16, 0xfff) << 44 | cap(s->md, 0x7f) << 56 | (ULong)inv << 63;
}

/* Latency in cycles of an IR operation's result (1: not tracked), and
 * whether it is floating point or a multiply/divide. */
static UInt op_latency(IROp op, Bool *fp, Bool *md)
{
	*fp = *md = False;
	switch (op) {
	case Iop_Mul32: case Iop_Mul64: case Iop_MullS32: case Iop_MullU32:
	case Iop_MullS64: case Iop_MullU64:
		*md = True;
		return 3;
	case Iop_DivU32: case Iop_DivS32: case Iop_DivU64: case Iop_DivS64:
	case Iop_DivModU64to32: case Iop_DivModS64to32: case Iop_DivModU128to64:
	case Iop_DivModS128to64: case Iop_DivModS64to64: case Iop_DivModU64to64:
		*md = True;
		return 26;
	case Iop_AddF64: case Iop_SubF64: case Iop_AddF32: case Iop_SubF32:
	case Iop_Add64F0x2: case Iop_Sub64F0x2: case Iop_Add32F0x4: case Iop_Sub32F0x4:
	case Iop_Add64Fx2: case Iop_Sub64Fx2: case Iop_Add32Fx4: case Iop_Sub32Fx4:
	case Iop_Add64Fx4: case Iop_Sub64Fx4: case Iop_Add32Fx8: case Iop_Sub32Fx8:
		*fp = True;
		return 3;
	case Iop_MulF64: case Iop_MulF32: case Iop_Mul64F0x2: case Iop_Mul32F0x4:
	case Iop_Mul64Fx2: case Iop_Mul32Fx4: case Iop_Mul64Fx4: case Iop_Mul32Fx8:
		*fp = True;
		return 5;
	case Iop_DivF64: case Iop_DivF32: case Iop_Div64F0x2: case Iop_Div32F0x4:
	case Iop_Div64Fx2: case Iop_Div32Fx4: case Iop_Div64Fx4: case Iop_Div32Fx8:
	case Iop_SqrtF64: case Iop_Sqrt64F0x2:
		*fp = True;
		return 22;
	default:
		return 1;
	}
}

typedef struct {
	IRSB *out;
	seg s;
	UInt ins;          /* instruction index within the superblock */
	UInt seg_first;    /* ins of the segment's first instruction */
	Addr pc;
	UInt pc_len;
	UChar lat[MAX_TMPS];
	UInt def_ins[MAX_TMPS];
	Bool def_chain[MAX_TMPS]; /* the producer was itself long-latency */
} instr_state;

/*
 * A dependency stall: the use of `e` as an operand of a long-latency
 * operation (or as a load address) waits for its producer, less the
 * instructions dispatched in between.  Only chains are charged; an
 * isolated long-latency result overlaps with the work around it.
 */
static void use(instr_state *S, IRExpr *e, Bool chain)
{
	if (!e || e->tag != Iex_RdTmp)
		return;
	IRTemp t = e->Iex.RdTmp.tmp;
	if (t >= MAX_TMPS || S->lat[t] <= 1 || !chain)
		return;
	Int dist16 = (Int)(S->ins - S->def_ins[t]) * 16 / (Int)cfg.width;
	Int st = ((Int)S->lat[t] - 1) * 16 - dist16;
	if (st > 0)
		S->s.dep16 += (UInt)st;
	S->lat[t] = 1; /* charged once */
}

static void add_call(instr_state *S, const HChar *name, void *fn, Int regparms,
		     IRExpr **args, IRExpr *guard)
{
	IRDirty *di = unsafeIRDirty_0_N(regparms, name, VG_(fnptr_to_fnentry)(fn), args);
	if (guard)
		di->guard = guard;
	addStmtToIRSB(S->out, IRStmt_Dirty(di));
}

static void mem_call(instr_state *S, IRExpr *addr, Int size, Bool store, IRExpr *val,
		     IRExpr *guard)
{
	ULong sz_idx = (ULong)(size & 0xffff) | (ULong)(S->ins - S->seg_first) << 16;
	if (store)
		add_call(S, "vpmu_store", h_store, 2,
			 mkIRExprVec_2(addr, mkIRExpr_HWord((HWord)sz_idx)), guard);
	else
		add_call(S, "vpmu_load", h_load, 3,
			 mkIRExprVec_3(addr, mkIRExpr_HWord((HWord)sz_idx),
				       val ? val : mkIRExpr_HWord(0)),
			 guard);
}

static void flush(instr_state *S)
{
	if (!S->s.n && !S->s.ops)
		return;
	add_call(S, "vpmu_flush", h_flush, 1, mkIRExprVec_1(mkIRExpr_HWord((HWord)pack(&S->s, False))),
		 NULL);
	VG_(memset)(&S->s, 0, sizeof S->s);
	S->seg_first = S->ins;
}

static void on_wrtmp(instr_state *S, IRSB *in, IRStmt *st)
{
	IRTemp t = st->Ist.WrTmp.tmp;
	IRExpr *d = st->Ist.WrTmp.data;
	IROp op = Iop_INVALID;
	IRExpr *a[4] = {0};
	switch (d->tag) {
	case Iex_Unop: op = d->Iex.Unop.op; a[0] = d->Iex.Unop.arg; break;
	case Iex_Binop: op = d->Iex.Binop.op; a[0] = d->Iex.Binop.arg1; a[1] = d->Iex.Binop.arg2; break;
	case Iex_Triop:
		op = d->Iex.Triop.details->op;
		a[0] = d->Iex.Triop.details->arg1;
		a[1] = d->Iex.Triop.details->arg2;
		a[2] = d->Iex.Triop.details->arg3;
		break;
	case Iex_Qop:
		op = d->Iex.Qop.details->op;
		a[0] = d->Iex.Qop.details->arg2;
		a[1] = d->Iex.Qop.details->arg3;
		a[2] = d->Iex.Qop.details->arg4;
		break;
	case Iex_Load: use(S, d->Iex.Load.addr, True); break;
	default: break;
	}
	UInt lat = 1;
	if (op != Iop_INVALID) {
		Bool fp, md;
		lat = op_latency(op, &fp, &md);
		S->s.ops++;
		S->s.fp += fp;
		S->s.md += md;
		for (int i = 0; i < 4; i++)
			use(S, a[i], lat > 1);
	}
	addStmtToIRSB(S->out, st);
	if (d->tag == Iex_Load) {
		IRType ty = d->Iex.Load.ty;
		lat = 4;
		mem_call(S, d->Iex.Load.addr, sizeofIRType(ty), False,
			 ty == Ity_I64 ? IRExpr_RdTmp(t) : NULL, NULL);
	}
	if (t < MAX_TMPS) {
		S->lat[t] = (UChar)(lat > 255 ? 255 : lat);
		S->def_ins[t] = S->ins;
	}
	(void)in;
}

static IRSB *vpmu_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
			     const VexGuestExtents *vge, const VexArchInfo *archinfo,
			     IRType gWordTy, IRType hWordTy)
{
	(void)closure; (void)layout; (void)vge; (void)archinfo; (void)gWordTy; (void)hWordTy;
	instr_state *S = VG_(calloc)("vpmu.instr", 1, sizeof *S);
	S->out = deepCopyIRSBExceptStmts(in);
	Int i = 0;
	while (i < in->stmts_used && in->stmts[i]->tag != Ist_IMark)
		addStmtToIRSB(S->out, in->stmts[i++]);
	Bool first = True;
	for (; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];
		if (!st || st->tag == Ist_NoOp)
			continue;
		switch (st->tag) {
		case Ist_IMark:
			if (!first)
				S->ins++;
			first = False;
			S->s.n++;
			S->pc = (Addr)st->Ist.IMark.addr;
			S->pc_len = st->Ist.IMark.len;
			addStmtToIRSB(S->out, st);
			break;
		case Ist_WrTmp:
			on_wrtmp(S, in, st);
			break;
		case Ist_Store: {
			IRExpr *data = st->Ist.Store.data;
			use(S, st->Ist.Store.addr, True);
			addStmtToIRSB(S->out, st);
			mem_call(S, st->Ist.Store.addr, sizeofIRType(typeOfIRExpr(in->tyenv, data)),
				 True, NULL, NULL);
			break;
		}
		case Ist_StoreG: {
			IRStoreG *g = st->Ist.StoreG.details;
			addStmtToIRSB(S->out, st);
			mem_call(S, g->addr, sizeofIRType(typeOfIRExpr(in->tyenv, g->data)), True,
				 NULL, g->guard);
			break;
		}
		case Ist_LoadG: {
			IRLoadG *g = st->Ist.LoadG.details;
			IRType tres, targ;
			typeOfIRLoadGOp(g->cvt, &tres, &targ);
			addStmtToIRSB(S->out, st);
			mem_call(S, g->addr, sizeofIRType(targ), False, NULL, g->guard);
			break;
		}
		case Ist_Dirty: {
			IRDirty *d = st->Ist.Dirty.details;
			addStmtToIRSB(S->out, st);
			if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
				mem_call(S, d->mAddr, d->mSize, False, NULL, NULL);
			if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
				mem_call(S, d->mAddr, d->mSize, True, NULL, NULL);
			break;
		}
		case Ist_CAS: {
			IRCAS *c = st->Ist.CAS.details;
			Int sz = sizeofIRType(typeOfIRExpr(in->tyenv, c->dataLo)) * (c->dataHi ? 2 : 1);
			addStmtToIRSB(S->out, st);
			mem_call(S, c->addr, sz, False, NULL, NULL);
			mem_call(S, c->addr, sz, True, NULL, NULL);
			break;
		}
		case Ist_LLSC: {
			IRExpr *sd = st->Ist.LLSC.storedata;
			addStmtToIRSB(S->out, st);
			if (sd)
				mem_call(S, st->Ist.LLSC.addr,
					 sizeofIRType(typeOfIRExpr(in->tyenv, sd)), True, NULL, NULL);
			else
				mem_call(S, st->Ist.LLSC.addr,
					 sizeofIRType(typeOfIRTemp(in->tyenv, st->Ist.LLSC.result)),
					 False, NULL, NULL);
			break;
		}
		case Ist_Exit: {
			IRExpr *g = st->Ist.Exit.guard;
			Addr dst = (Addr)(st->Ist.Exit.dst->tag == Ico_U64 ? st->Ist.Exit.dst->Ico.U64
									  : st->Ist.Exit.dst->Ico.U32);
			Bool cond = st->Ist.Exit.jk == Ijk_Boring && dst != S->pc;
			if (cond) {
				/* VEX may exit on the fall-through and continue at the target */
				Bool inv = dst == S->pc + S->pc_len;
				IRTemp w = newIRTemp(S->out->tyenv, Ity_I64);
				addStmtToIRSB(S->out, IRStmt_WrTmp(w, IRExpr_Unop(Iop_1Uto64, g)));
				add_call(S, "vpmu_branch", h_branch, 3,
					 mkIRExprVec_3(mkIRExpr_HWord((HWord)S->pc), IRExpr_RdTmp(w),
						       mkIRExpr_HWord((HWord)pack(&S->s, inv))),
					 NULL);
				VG_(memset)(&S->s, 0, sizeof S->s);
				S->seg_first = S->ins;
			} else {
				flush(S);
			}
			addStmtToIRSB(S->out, st);
			break;
		}
		default:
			addStmtToIRSB(S->out, st);
			break;
		}
	}
	/* the instructions after the last exit retire when the block ends */
	S->ins++;
	flush(S);
	IRSB *out = S->out;
	VG_(free)(S);
	return out;
}

/* ---- processes the tool does not follow -------------------------------- */

static void put_record(UInt type, const void *payload, UInt len)
{
	if (!writer())
		return;
	struct vpmu_head h = {VPMU_MAGIC, type, len, 0};
	put(&h, sizeof h);
	put(payload, len);
}

/* Append the client's string at `p` to buf (capacity cap, length *n),
 * while it is readable. */
static void copy_client_str(HChar *buf, UInt cap, UInt *n, const HChar *p)
{
	for (; *n < cap - 1 && VG_(am_is_valid_for_client)((Addr)p, 1, VKI_PROT_READ) && *p; p++)
		buf[(*n)++] = *p;
	buf[*n] = 0;
}

/* An execve replaces the client with a program Valgrind does not trace: tell
 * the host which, with its arguments, before it happens (a successful execve
 * never returns to the tool). */
static void vpmu_pre_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nargs)
{
	(void)tid;
	const HChar *path;
	const HChar *const *argv;
	if (sysno == __NR_execve && nargs >= 2)
		path = (const HChar *)args[0], argv = (const HChar *const *)args[1];
#if defined(__NR_execveat)
	else if (sysno == __NR_execveat && nargs >= 3)
		path = (const HChar *)args[1], argv = (const HChar *const *)args[2];
#endif
	else
		return;
	HChar buf[1024];
	UInt n = 0;
	copy_client_str(buf, sizeof buf, &n, path);
	/* the arguments after argv[0], which names the program again */
	for (UInt i = 1; argv && i < 64 && n < sizeof buf - 2; i++) {
		if (!VG_(am_is_valid_for_client)((Addr)(argv + i), sizeof *argv, VKI_PROT_READ) ||
		    !argv[i])
			break;
		buf[n++] = ' ';
		copy_client_str(buf, sizeof buf, &n, argv[i]);
	}
	put_record(VPMU_REC_EXEC, buf, n);
}

/* Reached only when the execve failed (execvp tries each PATH entry). */
static void vpmu_post_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nargs, SysRes res)
{
	(void)tid, (void)args, (void)nargs, (void)res;
	if (sysno == __NR_execve
#if defined(__NR_execveat)
	    || sysno == __NR_execveat
#endif
	)
		put_record(VPMU_REC_EXEC_FAILED, "", 0);
}

static void vpmu_fork_parent(ThreadId tid)
{
	(void)tid;
	put_record(VPMU_REC_FORK, "", 0);
}

/* ---- options, start, end ------------------------------------------------- */

static Bool parse_cache(const HChar *arg, const HChar *name, vpmu_cache_cfg *c)
{
	SizeT n = VG_(strlen)(name);
	if (VG_(strncmp)(arg, name, n) || arg[n] != '=')
		return False;
	const HChar *p = arg + n + 1;
	HChar *e;
	Long v[3];
	for (int i = 0; i < 3; i++) {
		v[i] = VG_(strtoll10)(p, &e);
		if (e == p || v[i] <= 0 || (i < 2 && *e != ',') || (i == 2 && *e))
			VG_(fmsg_bad_option)(arg, "give SIZE,ASSOC,LINE in bytes, ways, bytes\n");
		p = e + 1;
	}
	c->size = (UInt)v[0];
	c->assoc = (UInt)v[1];
	c->line = (UInt)v[2];
	UInt sets = c->size / (c->assoc * c->line);
	if (!sets || (sets & (sets - 1)) || c->size != sets * c->assoc * c->line ||
	    (c->line & (c->line - 1)))
		VG_(fmsg_bad_option)(arg, "the number of sets and the line size must be "
				     "powers of two\n");
	return True;
}

static Bool vpmu_option(const HChar *arg)
{
	Long v;
	if VG_INT_CLO(arg, "--vpmu-fd", clo_fd) {}
	else if VG_BINT_CLO(arg, "--interval", clo_interval, 1000, 1000000000000LL) {}
	else if VG_BINT_CLO(arg, "--sample-period", clo_period, 1, 1000000000LL) {}
	else if VG_BINT_CLO(arg, "--freq-mhz", v, 100, 10000) { cfg.freq_mhz = (UInt)v; }
	else if VG_BINT_CLO(arg, "--width", v, 1, 16) { cfg.width = (UInt)v; }
	else if VG_BINT_CLO(arg, "--rob", v, 8, 4096) { cfg.rob = (UInt)v; }
	else if VG_BINT_CLO(arg, "--mshr", v, 1, VPMU_MAX_MSHR) { cfg.mshr = (UInt)v; }
	else if VG_BINT_CLO(arg, "--misp-penalty", v, 0, 200) { cfg.misp_penalty = (UInt)v; }
	else if VG_BINT_CLO(arg, "--gshare-bits", v, 4, 24) { cfg.gshare_bits = (UInt)v; }
	else if VG_BINT_CLO(arg, "--l2-cycles", v, 1, 1000) { cfg.l2_cycles = (UInt)v; }
	else if VG_BINT_CLO(arg, "--llc-cycles", v, 1, 1000) { cfg.llc_cycles = (UInt)v; }
	else if VG_BINT_CLO(arg, "--llc-uncore-ps", v, 0, 1000000) { cfg.llc_uncore_ps = (UInt)v; }
	else if VG_BINT_CLO(arg, "--dram-ps", v, 1000, 10000000) { cfg.dram_ps = (UInt)v; }
	else if VG_BINT_CLO(arg, "--dram-mbps", v, 100, 10000000) { cfg.dram_mbps = (UInt)v; }
	else if VG_BINT_CLO(arg, "--prefetch-degree", v, 0, 16) { cfg.prefetch_degree = (UInt)v; }
	else if (parse_cache(arg, "--l1", &cfg.l1)) {}
	else if (parse_cache(arg, "--l2", &cfg.l2)) {}
	else if (parse_cache(arg, "--llc", &cfg.llc)) {}
	else
		return False;
	return True;
}

static void vpmu_usage(void)
{
	VG_(printf)(
	"    --vpmu-fd=N               write records to file descriptor N [none]\n"
	"    --interval=N              instructions per interval [100000000]\n"
	"    --sample-period=N         sample every Nth conditional branch [20011]\n"
	"    --freq-mhz=N              virtual core clock [2660]\n"
	"    --width=N --rob=N --mshr=N --misp-penalty=N --gshare-bits=N\n"
	"    --l1=S,A,L --l2=S,A,L --llc=S,A,L   cache geometry\n"
	"    --l2-cycles=N --llc-cycles=N --llc-uncore-ps=N --dram-ps=N\n"
	"    --dram-mbps=N --prefetch-degree=N   latencies and DRAM\n");
}

static void vpmu_debug_usage(void) {}

static void vpmu_post_clo_init(void)
{
	if (clo_fd < 0) {
		VG_(umsg)("vpmu: no --vpmu-fd; run the vPMU through 'sleuth run "
			  "--backend vpmu'\n");
		VG_(exit)(1);
	}
	my_pid = VG_(getpid)();
	vpmu_core_init(&core, &cfg);
	samples = VG_(malloc)("vpmu.samples", MAX_SAMPLES * sizeof *samples);
	next_boundary = (ULong)clo_interval;
	VG_(atfork)(NULL, vpmu_fork_parent, NULL);
}

/* The executable mappings, for symbolising samples: the host reads the
 * text of /proc/self/maps (Valgrind's and the client's share a process). */
static void emit_maps(void)
{
	SysRes r = VG_(open)("/proc/self/maps", VKI_O_RDONLY, 0);
	if (sr_isError(r))
		return;
	Int fd = (Int)sr_Res(r);
	UInt cap = 1 << 16, len = 0;
	HChar *buf = VG_(malloc)("vpmu.maps", cap);
	for (;;) {
		if (cap - len < 4096) {
			cap *= 2;
			buf = VG_(realloc)("vpmu.maps", buf, cap);
		}
		Int n = VG_(read)(fd, buf + len, (Int)(cap - len));
		if (n <= 0)
			break;
		len += (UInt)n;
	}
	VG_(close)(fd);
	put_record(VPMU_REC_MAPS, buf, len);
	VG_(free)(buf);
}

static void vpmu_fini(Int exitcode)
{
	if (core.icount > core.icount_before)
		emit_interval();
	if (!writer())
		return;
	emit_maps();
	struct vpmu_end e = {exitcode};
	put_record(VPMU_REC_END, &e, sizeof e);
}

static void vpmu_pre_clo_init(void)
{
	VG_(details_name)("vpmu");
	VG_(details_version)(NULL);
	VG_(details_description)("sleuth's virtual PMU");
	VG_(details_copyright_author)("sleuth authors");
	VG_(details_bug_reports_to)("the sleuth project");
	VG_(details_avg_translation_sizeB)(400);
	VG_(basic_tool_funcs)(vpmu_post_clo_init, vpmu_instrument, vpmu_fini);
	VG_(needs_command_line_options)(vpmu_option, vpmu_usage, vpmu_debug_usage);
	VG_(needs_syscall_wrapper)(vpmu_pre_syscall, vpmu_post_syscall);
}

VG_DETERMINE_INTERFACE_VERSION(vpmu_pre_clo_init)
