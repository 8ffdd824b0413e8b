# scripts/gdb/baton.py - GDB helpers for baton (loaded by `make debug`).
#
#   baton-cpus      every possible CPU: APIC id, online/active, what runs there
#   baton-threads   every thread: name, tid, CPU, state, class, nice, switches
#   baton-pools     worker pools: workers, idle, nr_running, pending, trustee
#   baton-works     the items waiting on each pool's worklist (function names)
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
                t = gdb.Value(int(pc["curr_thread"])).cast(gdb.lookup_type("struct thread").pointer())
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


Cpus()
Threads()
Pools()
Works()
gdb.write("baton: GDB helpers loaded: baton-cpus, baton-threads, baton-pools, baton-works\n")
