# scripts/gdb/baton.py - GDB helpers for baton (loaded by `make debug`).
#
#   baton-cpus      every possible CPU: APIC id, online/active, what runs there
#   baton-threads   every thread: name, tid, CPU, state, class, nice, switches
#   baton-pools     worker pools: workers, idle, nr_running, pending, trustee
#   baton-works     the items waiting on each pool's worklist (function names)
#   baton-profile FUNC [SKIP [CPU]]
#                   where the instructions of one round go: let FUNC be
#                   entered SKIP times (default 0; on CPU only, if given),
#                   then single-step that CPU alone (interrupts are held
#                   off while stepping) until FUNC's entry is reached
#                   again, and count
#                   the instructions by function (inlined ones shown under
#                   the function they were inlined into). docs/bench.md
#                   shows it on the no-op burst.
#
# They read kernel data structures through the symbols in build/baton.elf;
# the machine is stopped while they run, so no locks are needed. Python in
# GDB only; nothing here runs in the kernel.
import gdb

CLASSES = {0: "idle", 1: "fair", 2: "fifo"}
TRUSTEE = {0: "", 1: "trustee in-charge", 2: "trustee done"}


def sym(name):
    return gdb.parse_and_eval(name)


def thread_state_name(state):
    """The kernel's own words (thread_state_names[] in kernel/sched.c)."""
    names = sym("thread_state_names")
    n = names.type.sizeof // names[0].type.sizeof
    return names[state].string() if 0 <= state < n else "?"


def cpumask_test(mask, cpu):
    bits = mask["bits"]
    return bool(int(bits[cpu // 64]) >> (cpu % 64) & 1)


def nr_cpu_ids():
    return int(sym("nr_cpu_ids"))


def container_of(ptr, typename, member):
    t = gdb.lookup_type(typename)
    off = 0
    for f in t.fields():
        if f.name == member:
            off = f.bitpos // 8
    return gdb.Value(int(ptr) - off).cast(t.pointer())


def list_entries(head, typename, member):
    """Walk a struct list_head (head is a gdb.Value of type struct list_head)."""
    first = head["next"]
    node = first
    seen = 0
    while int(node) != int(head.address):
        yield container_of(node, typename, member)
        node = node["next"]
        seen += 1
        if seen > 100000:
            raise gdb.GdbError("list at %s looks corrupt" % head.address)


def symbol_of(addr):
    try:
        block = gdb.block_for_pc(int(addr))
        if block and block.function:
            return block.function.name
    except RuntimeError:
        pass
    return "0x%x" % int(addr)


class Cpus(gdb.Command):
    """List CPUs: baton-cpus"""

    def __init__(self):
        super().__init__("baton-cpus", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        possible, online = sym("cpu_possible_mask"), sym("cpu_online_mask")
        active, present = sym("cpu_active_mask"), sym("cpu_present_mask")
        for cpu in range(nr_cpu_ids()):
            if not cpumask_test(possible, cpu):
                continue
            state = ("online" if cpumask_test(online, cpu) else
                     "offline" if cpumask_test(present, cpu) else "not present")
            if cpumask_test(online, cpu) and not cpumask_test(active, cpu):
                state += ", inactive"
            pc = sym("percpu_areas")[cpu]
            curr = "-"
            if int(pc):
                t = gdb.Value(int(pc["sched"]["curr_thread"])).cast(gdb.lookup_type("struct thread").pointer())
                curr = t["name"].string() if int(t) else "-"
            rq = sym("runqueues")[cpu]
            gdb.write("cpu%-3d apic %-3d %-18s current %-18s queued %d switches %d\n" % (
                cpu, int(sym("cpu_apic_ids")[cpu]), state, curr, int(rq["nr_queued"]),
                int(rq["nr_switches"])))


class Threads(gdb.Command):
    """List threads: baton-threads"""

    def __init__(self):
        super().__init__("baton-threads", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        gdb.write("%-20s %5s %4s %-7s %-5s %5s %8s %8s\n" % ("NAME", "TID", "CPU", "STATE", "CLASS",
                                                          "NICE", "VCSW", "IVCSW"))
        for t in list_entries(sym("all_threads"), "struct thread", "all_link"):
            gdb.write("%-20s %5d %4d %-7s %-5s %5d %8d %8d\n" % (
                t["name"].string(), int(t["tid"]), int(t["cpu"]),
                thread_state_name(int(t["state"])), CLASSES.get(int(t["policy"]), "?"),
                int(t["nice"]), int(t["stats"]["nvcsw"]), int(t["stats"]["nivcsw"])))


def each_pool():
    pools = sym("cpu_pools")
    possible = sym("cpu_possible_mask")
    for cpu in range(nr_cpu_ids()):
        if cpumask_test(possible, cpu):
            for i in range(2):
                yield "cpu%d%s" % (cpu, " highpri" if i else ""), pools[cpu][i]
    for p in list_entries(sym("unbound_pools"), "struct worker_pool", "unbound_node"):
        yield "unbound u%d nice %d" % (int(p["id"]), int(p["attrs"]["nice"])), p.dereference()


class Pools(gdb.Command):
    """List worker pools: baton-pools"""

    def __init__(self):
        super().__init__("baton-pools", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        for name, p in each_pool():
            pending = sum(1 for _ in list_entries(p["worklist"], "struct work_struct", "entry"))
            gdb.write("pool %-22s workers %3d idle %3d nr_running %2d pending %4d %s\n" % (
                name, int(p["nr_workers"]), int(p["nr_idle"]), int(p["nr_running"]["counter"]),
                pending, TRUSTEE.get(int(p["trustee_state"]), "")))
            for w in list_entries(p["workers"], "struct worker", "node"):
                fn = int(w["current_func"])
                gdb.write("    %-18s %s\n" % (w["thread"]["name"].string(),
                                             symbol_of(fn) if fn else "(idle)"))


class Works(gdb.Command):
    """List pending work items: baton-works"""

    def __init__(self):
        super().__init__("baton-works", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        total = 0
        for name, p in each_pool():
            for w in list_entries(p["worklist"], "struct work_struct", "entry"):
                gdb.write("pool %-22s %s at 0x%x\n" % (name, symbol_of(w["func"]), int(w)))
                total += 1
        gdb.write("%d pending work items\n" % total)


class ThreadEntry(gdb.Breakpoint):
    """A breakpoint on FUNC that stops only in thread context (no
    x86_interrupt() on the stack), on one CPU if cpu is given, after
    skipping skip such entries."""

    def __init__(self, func, skip, cpu):
        super().__init__(func, internal=True)
        self.skip, self.cpu = skip, cpu

    def stop(self):
        if self.cpu is not None and gdb.selected_thread().num != self.cpu + 1:
            return False  # QEMU: one GDB thread per CPU, numbered from 1
        frame = gdb.newest_frame().older()
        while frame is not None:
            if frame.name() == "x86_interrupt":
                return False
            frame = frame.older()
        if self.skip:
            self.skip -= 1
            return False
        return True


class Profile(gdb.Command):
    """baton-profile FUNC [SKIP [CPU]]: instructions from one entry of FUNC to the next,
    in thread context (an entry from an interrupt handler is passed over: a
    loop's profile would otherwise run through whatever interrupt came)."""

    LIMIT = 100000  # steps: a round that never comes back ends here

    def __init__(self):
        super().__init__("baton-profile", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        argv = gdb.string_to_argv(arg)
        if not 1 <= len(argv) <= 3 or not all(a.isdigit() for a in argv[1:]):
            raise gdb.GdbError("usage: baton-profile FUNC [SKIP [CPU]]")
        bp = ThreadEntry(argv[0], int(argv[1]) if len(argv) >= 2 else 0,
                         int(argv[2]) if len(argv) == 3 else None)
        try:
            gdb.execute("continue", to_string=True)
        finally:
            bp.delete()
        start = int(gdb.parse_and_eval("$pc"))
        outer, inner = {}, {}
        gdb.execute("set scheduler-locking step")
        # Each step's stop is printed around to_string: send it nowhere.
        for c in ("set logging file /dev/null", "set logging redirect on",
                  "set logging enabled on"):
            gdb.execute(c, to_string=True)
        try:
            n = self.step(start, outer, inner)
        finally:
            gdb.execute("set logging enabled off", to_string=True)
        if n > self.LIMIT:
            gdb.write("baton-profile: %s not reached again in %d steps\n" % (argv[0], self.LIMIT))
        gdb.write("%d instructions from %s back to it\n" % (min(n, self.LIMIT), argv[0]))
        for host, c in sorted(outer.items(), key=lambda kv: -kv[1]):
            gdb.write("%6d  %s\n" % (c, host))
            for (h, name), ci in sorted(inner.items(), key=lambda kv: -kv[1]):
                if h == host and name != host:
                    gdb.write("%6s    %5d inlined %s\n" % ("", ci, name))

    def step(self, start, outer, inner):
        """Step until start comes back; the steps taken (LIMIT + 1: never)."""
        for n in range(1, self.LIMIT + 1):
            gdb.execute("stepi", to_string=True)
            frame = gdb.selected_frame()
            name = frame.name() or "?"
            while frame is not None and frame.type() == gdb.INLINE_FRAME:
                frame = frame.older()
            host = (frame.name() if frame else None) or "?"
            outer[host] = outer.get(host, 0) + 1
            inner[(host, name)] = inner.get((host, name), 0) + 1
            if int(gdb.parse_and_eval("$pc")) == start:
                return n
        return self.LIMIT + 1


Cpus()
Threads()
Pools()
Works()
Profile()
gdb.write("baton: GDB helpers loaded: baton-cpus, baton-threads, baton-pools, baton-works, "
          "baton-profile\n")
