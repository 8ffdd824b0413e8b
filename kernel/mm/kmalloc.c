/* kernel/mm/kmalloc.c - size-class slabs with debug checks; see kmalloc.h.
 *
 * A slab is 2^order naturally aligned pages. It starts with a struct slab,
 * followed by equal slots:
 *
 *   | struct kobj (32) | data: class size | red zone (16) |
 *
 * pmm_page_priv() of every page of a slab points at its struct slab, so
 * kfree() finds the slab (and the size class) from any object address.
 * Large allocations are whole page blocks whose priv holds their size,
 * tagged with bit 0 (slab pointers are aligned, so bit 0 tells them apart).
 */
#define pr_fmt(fmt) "kmalloc: " fmt
#include "kernel/mm/kmalloc.h"
#include "arch/x86_64/paging.h"
#include "kernel/mm/pmm.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "lib/list.h"
#include "lib/printf.h"
#include "lib/string.h"

#define KOBJ_MAGIC_LIVE	     0x4c495645u /* "LIVE" */
#define KOBJ_MAGIC_FREE	     0x46524545u /* "FREE" */
#define KOBJ_MAGIC_BAD	     0x42414421u /* "BAD!": reported, out of circulation */
#define REDZONE_SIZE	     16
#define POISON_FREE	     0x6b
#define POISON_REDZONE	     0xcc
#define SLAB_MAGIC	     0x534c4142u
#define MIN_OBJECTS_PER_SLAB 8

struct kobj {
	u32 magic; /* KOBJ_MAGIC_* */
	u32 size;  /* requested size (live objects) */
	const void *alloc_site;
	const void *free_site;
	struct kobj *next_free; /* cache lock: free list link */
};
BUILD_BUG_ON(sizeof(struct kobj) != 32);

struct kmem_cache;

struct slab {
	u32 magic;
	u32 nr_free; /* cache->lock */
	struct kmem_cache *cache;
	struct kobj *free;     /* cache->lock */
	struct list_head link; /* cache->lock: on cache->partial or ->full */
	u8 *objects;	       /* I: first slot */
};

struct kmem_cache {
	struct spinlock lock;
	size_t size;		  /* I: data bytes per object */
	size_t slot;		  /* I: bytes per slot */
	unsigned int order;	  /* I: pages per slab = 2^order */
	unsigned int per_slab;	  /* I: slots per slab */
	struct list_head partial; /* lock: slabs with free slots */
	struct list_head full;	  /* lock */
	u64 slabs;		  /* lock */
};

static struct kmem_cache caches[] = {
	{ .size = 16 },	 { .size = 32 },  { .size = 64 },   { .size = 128 },
	{ .size = 256 }, { .size = 512 }, { .size = 1024 }, { .size = 2048 },
};

static struct kmalloc_stats stats; /* updated with atomics */
unsigned long kmalloc_errors;

void kmalloc_init(void)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(caches); i++) {
		struct kmem_cache *c = &caches[i];

		spin_lock_init(&c->lock, "kmem_cache");
		c->slot = sizeof(struct kobj) + c->size + REDZONE_SIZE;
		c->order = 0;
		while ((((size_t)PAGE_SIZE << c->order) - sizeof(struct slab)) / c->slot <
		       MIN_OBJECTS_PER_SLAB)
			c->order++;
		c->per_slab = (unsigned int)((((size_t)PAGE_SIZE << c->order) -
					      ALIGN_UP(sizeof(struct slab), 16)) /
					     c->slot);
		INIT_LIST_HEAD(&c->partial);
		INIT_LIST_HEAD(&c->full);
	}
}

static struct kmem_cache *cache_for(size_t size)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(caches); i++)
		if (size <= caches[i].size)
			return &caches[i];
	return NULL;
}

static void *kobj_data(struct kobj *o)
{
	return o + 1;
}

static void report(const char *what, const void *p, const struct kobj *o, const char *detail)
{
	char a[128] = "?", f[128] = "?";

	__atomic_add_fetch(&kmalloc_errors, 1, __ATOMIC_RELAXED);
	if (o && o->alloc_site)
		sprint_symbol(a, sizeof(a), (u64)o->alloc_site);
	if (o && o->free_site)
		sprint_symbol(f, sizeof(f), (u64)o->free_site);
	printk(KERN_ERR "==================================================================\n");
	report_bug("kmalloc", "%s of %p%s", what, p, detail ? detail : "");
	if (o)
		printk(KERN_ERR "object of %u bytes, allocated at %s, last freed at %s\n", o->size,
		       a, o->free_site ? f : "(never)");
	dump_stack();
	printk(KERN_ERR "==================================================================\n");
}

/* Is [p, p+len) all byte v? Returns the first offset that is not, or -1. */
static long find_unlike(const u8 *p, size_t len, u8 v)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != v)
			return (long)i;
	return -1;
}

/* Called with c->lock held. */
static struct slab *slab_create(struct kmem_cache *c)
{
	phys_addr_t pa = pmm_alloc_pages(c->order);

	assert_spin_locked(&c->lock);
	if (!pa)
		return NULL;
	struct slab *s = phys_to_virt(pa);

	s->magic = SLAB_MAGIC;
	s->cache = c;
	s->objects = (u8 *)s + ALIGN_UP(sizeof(struct slab), 16);
	s->free = NULL;
	for (unsigned int i = c->per_slab; i-- > 0;) {
		struct kobj *o = (struct kobj *)(s->objects + i * c->slot);

		*o = (struct kobj){ .magic = KOBJ_MAGIC_FREE, .next_free = s->free };
		memset(kobj_data(o), POISON_FREE, c->size + REDZONE_SIZE);
		s->free = o;
	}
	s->nr_free = c->per_slab;
	for (unsigned int i = 0; i < (1u << c->order); i++)
		pmm_set_page_priv(pa + (u64)i * PAGE_SIZE, s);
	list_add(&s->link, &c->partial);
	c->slabs++;
	__atomic_add_fetch(&stats.slab_pages, 1u << c->order, __ATOMIC_RELAXED);
	return s;
}

static void *cache_alloc(struct kmem_cache *c, size_t size, const void *site)
{
	unsigned long flags = spin_lock_irqsave(&c->lock);
	struct slab *s;
	struct kobj *o;

again:
	s = list_first_entry_or_null(&c->partial, struct slab, link);
	if (!s && !(s = slab_create(c))) {
		spin_unlock_irqrestore(&c->lock, flags);
		return NULL;
	}
	o = s->free;
	s->free = o->next_free;
	if (--s->nr_free == 0)
		list_move(&s->link, &c->full);
	long bad = find_unlike(kobj_data(o), c->size + REDZONE_SIZE, POISON_FREE);

	if (o->magic != KOBJ_MAGIC_FREE || bad >= 0) {
		/* Someone wrote to it after it was freed: keep it out of use. */
		o->magic = KOBJ_MAGIC_BAD;
		spin_unlock_irqrestore(&c->lock, flags);
		report("write after free", kobj_data(o), o,
		       bad >= 0 ? " (a freed object was modified)" : " (header overwritten)");
		flags = spin_lock_irqsave(&c->lock);
		goto again;
	}
	o->magic = KOBJ_MAGIC_LIVE;
	o->size = (u32)size;
	o->alloc_site = site;
	o->free_site = NULL;
	o->next_free = NULL;
	memset((u8 *)kobj_data(o) + size, POISON_REDZONE, c->size - size + REDZONE_SIZE);
	spin_unlock_irqrestore(&c->lock, flags);
	return kobj_data(o);
}

#define LARGE_TAG 1UL

static void *large_alloc(size_t size)
{
	unsigned int order = 0;

	while (((size_t)PAGE_SIZE << order) < size)
		order++;
	phys_addr_t pa = pmm_alloc_pages(order);

	if (!pa)
		return NULL;
	pmm_set_page_priv(pa, (void *)((size << 1) | LARGE_TAG));
	__atomic_add_fetch(&stats.large_allocs, 1, __ATOMIC_RELAXED);
	return phys_to_virt(pa);
}

static void *__kmalloc(size_t size, const void *site)
{
	struct kmem_cache *c;
	void *p;

	if (!size)
		size = 1;
	c = cache_for(size);
	p = c ? cache_alloc(c, size, site) : large_alloc(size);
	if (p) {
		__atomic_add_fetch(&stats.allocs, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&stats.bytes_in_use, size, __ATOMIC_RELAXED);
	}
	return p;
}

void *kmalloc(size_t size)
{
	return __kmalloc(size, __builtin_return_address(0));
}

void *kzalloc(size_t size)
{
	void *p = __kmalloc(size, __builtin_return_address(0));

	if (p)
		memset(p, 0, size);
	return p;
}

void *kcalloc(size_t n, size_t size)
{
	size_t total;

	if (__builtin_mul_overflow(n, size, &total))
		return NULL;
	void *p = __kmalloc(total, __builtin_return_address(0));

	if (p)
		memset(p, 0, total);
	return p;
}

/* The slab holding p and p's object, or NULL after reporting why not. */
static struct kobj *lookup(const void *p, struct slab **slab_out, const char *op)
{
	u64 va = (u64)p;

	if (va < PHYS_OFFSET || va >= KSTACK_BASE) {
		report(op, p, NULL, " (not a kmalloc address)");
		return NULL;
	}
	void *priv = pmm_page_priv(virt_to_phys(p));
	struct slab *s = priv;

	if (!priv || ((u64)priv & LARGE_TAG) || s->magic != SLAB_MAGIC) {
		report(op, p, NULL, " (not a kmalloc address, or already freed)");
		return NULL;
	}
	struct kmem_cache *c = s->cache;
	u64 off = (u64)((u8 *)p - s->objects);

	if ((u8 *)p < s->objects + sizeof(struct kobj) || (off - sizeof(struct kobj)) % c->slot ||
	    off / c->slot >= c->per_slab) {
		report(op, p, NULL, " (points inside an object, not at its start)");
		return NULL;
	}
	*slab_out = s;
	return (struct kobj *)p - 1;
}

static bool large_free(const void *p, const void *site)
{
	phys_addr_t pa = virt_to_phys(p);
	u64 tag = (u64)pmm_page_priv(pa);

	if (!(tag & LARGE_TAG))
		return false;
	(void)site;
	if (!IS_ALIGNED((u64)p, PAGE_SIZE)) {
		report("kfree", p, NULL, " (points inside a large allocation)");
		return true;
	}
	pmm_set_page_priv(pa, NULL);
	pmm_free_pages(pa);
	__atomic_sub_fetch(&stats.large_allocs, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&stats.frees, 1, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&stats.bytes_in_use, tag >> 1, __ATOMIC_RELAXED);
	return true;
}

void kfree(const void *p)
{
	const void *site = __builtin_return_address(0);
	struct slab *s;
	struct kobj *o;

	if (!p)
		return;
	if ((u64)p >= PHYS_OFFSET && (u64)p < KSTACK_BASE && large_free(p, site))
		return;
	if (!(o = lookup(p, &s, "kfree")))
		return;
	struct kmem_cache *c = s->cache;
	unsigned long flags = spin_lock_irqsave(&c->lock);

	if (o->magic != KOBJ_MAGIC_LIVE) {
		spin_unlock_irqrestore(&c->lock, flags);
		if (o->magic == KOBJ_MAGIC_FREE) {
			report("double free", p, o, NULL);
		} else if (o->magic != KOBJ_MAGIC_BAD) {
			report("kfree", p, NULL, " (object header overwritten)");
		}
		return;
	}
	size_t size = o->size;
	long bad = find_unlike((u8 *)p + size, c->size - size + REDZONE_SIZE, POISON_REDZONE);

	if (bad >= 0) {
		char detail[96];

		o->magic = KOBJ_MAGIC_BAD; /* quarantined: never handed out again */
		spin_unlock_irqrestore(&c->lock, flags);
		scnprintf(detail, sizeof(detail),
			  ": write past the end (byte %lu of a %zu-byte object is 0x%02x)",
			  (unsigned long)(size + (size_t)bad), size, ((u8 *)p)[size + (size_t)bad]);
		report("out-of-bounds write", p, o, detail);
		return;
	}
	o->magic = KOBJ_MAGIC_FREE;
	o->free_site = site;
	memset((void *)p, POISON_FREE, c->size + REDZONE_SIZE);
	o->next_free = s->free;
	s->free = o;
	if (s->nr_free++ == 0)
		list_move(&s->link, &c->partial);
	spin_unlock_irqrestore(&c->lock, flags);
	__atomic_add_fetch(&stats.frees, 1, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&stats.bytes_in_use, size, __ATOMIC_RELAXED);
}

size_t ksize(const void *p)
{
	struct slab *s;
	struct kobj *o;

	if (!p)
		return 0;
	u64 tag = (u64)pmm_page_priv(virt_to_phys(p));

	if (tag & LARGE_TAG)
		return tag >> 1;
	o = lookup(p, &s, "ksize");
	return o && o->magic == KOBJ_MAGIC_LIVE ? o->size : 0;
}

void kmalloc_get_stats(struct kmalloc_stats *st)
{
	st->allocs = __atomic_load_n(&stats.allocs, __ATOMIC_RELAXED);
	st->frees = __atomic_load_n(&stats.frees, __ATOMIC_RELAXED);
	st->bytes_in_use = __atomic_load_n(&stats.bytes_in_use, __ATOMIC_RELAXED);
	st->slab_pages = __atomic_load_n(&stats.slab_pages, __ATOMIC_RELAXED);
	st->large_allocs = __atomic_load_n(&stats.large_allocs, __ATOMIC_RELAXED);
}
