/* tests/host/test_rbtree.c - tests for lib/rbtree.c.
 *
 * After every operation the whole tree is checked against the rules
 * (root black, no red node with a red child, one black height, parent
 * links that point back, keys in order), its in-order walk against a
 * plain sorted array of the keys that should be there, both directions,
 * and the cached leftmost against the smallest key. Random inserts and
 * erases with fixed seeds, plus sorted and reverse-sorted runs (the worst
 * cases of an unbalanced tree), and equal keys (kept in insertion order,
 * as a timer queue needs).
 */
#include "ktest_host.h"
#include "lib/random.h"
#include "lib/rbtree.h"

struct item {
	u64 key;
	unsigned int seq; /* insertion order, to check ties */
	bool in;
	struct rb_node node;
};

#define key_of(n) rb_entry(n, struct item, node)->key

/* Insert after any equal keys (a FIFO among equals). */
static void insert(struct rb_root_cached *root, struct item *it)
{
	struct rb_node **link = &root->root.node, *parent = NULL;
	bool leftmost = true;

	while (*link) {
		parent = *link;
		if (it->key < key_of(parent)) {
			link = &parent->left;
		} else {
			link = &parent->right;
			leftmost = false;
		}
	}
	rb_link_node(&it->node, parent, link);
	rb_insert_color_cached(&it->node, root, leftmost);
	it->in = true;
}

static void erase(struct rb_root_cached *root, struct item *it)
{
	rb_erase_cached(&it->node, root);
	RB_CLEAR_NODE(&it->node);
	it->in = false;
}

/* Black height of n's subtree, or -1 if a rule is broken below n. */
static int check_subtree(const struct rb_node *n, const struct rb_node *parent)
{
	if (!n)
		return 1;
	if (rb_parent(n) != parent)
		return -1;
	bool red = !(n->parent_color & 1);

	if (red && ((n->left && !(n->left->parent_color & 1)) ||
		    (n->right && !(n->right->parent_color & 1))))
		return -1;
	if (n->left && key_of(n->left) > key_of(n))
		return -1;
	if (n->right && key_of(n->right) < key_of(n))
		return -1;
	int l = check_subtree(n->left, n), r = check_subtree(n->right, n);

	if (l < 0 || r < 0 || l != r)
		return -1;
	return l + !red;
}

/* The tree holds exactly the items marked in, in key order (ties by seq),
 * walked forwards and backwards; the cache names the first. */
static bool tree_ok(const struct rb_root_cached *root, struct item *items, size_t n)
{
	const struct rb_node *r = root->root.node;
	size_t count = 0, seen = 0;

	if (r && (!(r->parent_color & 1) || rb_parent(r)))
		return false;
	if (check_subtree(r, NULL) < 0)
		return false;
	if (rb_first_cached(root) != rb_first(&root->root))
		return false;
	for (size_t i = 0; i < n; i++)
		count += items[i].in;
	const struct item *prev = NULL;

	for (struct rb_node *p = rb_first(&root->root); p; p = rb_next(p)) {
		const struct item *it = rb_entry(p, struct item, node);

		if (!it->in || (prev && (prev->key > it->key ||
					 (prev->key == it->key && prev->seq > it->seq))))
			return false;
		prev = it;
		seen++;
	}
	if (seen != count)
		return false;
	for (struct rb_node *p = rb_last(&root->root); p; p = rb_prev(p))
		seen--;
	return seen == 0;
}

static void rbtree_empty(struct ktest *t)
{
	struct rb_root_cached root = RB_ROOT_CACHED;
	struct item it = { .key = 5 };

	KT_EXPECT_TRUE(t, rb_first(&root.root) == NULL);
	KT_EXPECT_TRUE(t, rb_last(&root.root) == NULL);
	KT_EXPECT_TRUE(t, rb_first_cached(&root) == NULL);
	RB_CLEAR_NODE(&it.node);
	KT_EXPECT_TRUE(t, RB_EMPTY_NODE(&it.node));
	insert(&root, &it);
	KT_EXPECT_FALSE(t, RB_EMPTY_NODE(&it.node));
	KT_EXPECT_TRUE(t, rb_first_cached(&root) == &it.node);
	KT_EXPECT_TRUE(t, rb_next(&it.node) == NULL && rb_prev(&it.node) == NULL);
	erase(&root, &it);
	KT_EXPECT_TRUE(t, RB_EMPTY_NODE(&it.node));
	KT_EXPECT_TRUE(t, root.root.node == NULL && rb_first_cached(&root) == NULL);
}

enum { N = 512 };

static void run_sequence(struct ktest *t, const u64 *keys, size_t n)
{
	struct item *items = host_alloc(n * sizeof(*items));
	struct rb_root_cached root = RB_ROOT_CACHED;
	bool ok = true;

	for (size_t i = 0; i < n; i++) {
		items[i].key = keys[i];
		items[i].seq = (unsigned int)i;
		insert(&root, &items[i]);
		ok = ok && tree_ok(&root, items, n);
	}
	KT_EXPECT_TRUE(t, ok);
	/* Take them out smallest first (a timer queue's common case). */
	while (rb_first_cached(&root)) {
		erase(&root, rb_entry(rb_first_cached(&root), struct item, node));
		ok = ok && tree_ok(&root, items, n);
	}
	KT_EXPECT_TRUE(t, ok);
	host_free(items);
}

static void rbtree_sorted_and_reversed(struct ktest *t)
{
	static u64 keys[N];

	for (size_t i = 0; i < N; i++)
		keys[i] = i;
	run_sequence(t, keys, N);
	for (size_t i = 0; i < N; i++)
		keys[i] = N - i;
	run_sequence(t, keys, N);
}

static void rbtree_equal_keys_keep_order(struct ktest *t)
{
	static u64 keys[N];

	for (size_t i = 0; i < N; i++)
		keys[i] = i % 4; /* four runs of equals, interleaved */
	run_sequence(t, keys, N);
}

/* Random inserts and erases (anywhere in the tree), fixed seeds. */
static void rbtree_random_operations(struct ktest *t)
{
	struct item *items = host_alloc(N * sizeof(*items));
	unsigned int seq = 0;
	bool ok = true;

	for (u64 seed = 1; seed <= 8; seed++) {
		struct rb_root_cached root = RB_ROOT_CACHED;
		struct prng r;

		prng_seed(&r, seed);
		for (size_t i = 0; i < N; i++) {
			items[i].in = false;
			RB_CLEAR_NODE(&items[i].node);
		}
		for (unsigned int op = 0; op < 8 * N; op++) {
			struct item *it = &items[prng_below(&r, N)];

			if (it->in) {
				erase(&root, it);
			} else {
				it->key = prng_below(&r, seed & 1 ? 64 : 1u << 30);
				it->seq = seq++;
				insert(&root, it);
			}
			ok = ok && tree_ok(&root, items, N);
		}
	}
	KT_EXPECT_TRUE(t, ok);
	host_free(items);
}

/* Depth stays within 2 log2(n + 1), the red-black bound. */
static void rbtree_height_bounded(struct ktest *t)
{
	struct item *items = host_alloc(4096 * sizeof(*items));
	struct rb_root_cached root = RB_ROOT_CACHED;
	unsigned int deepest = 0;

	for (size_t i = 0; i < 4096; i++) {
		items[i].key = i; /* sorted: a plain tree would be a list */
		items[i].seq = (unsigned int)i;
		insert(&root, &items[i]);
	}
	for (size_t i = 0; i < 4096; i++) {
		unsigned int d = 0;

		for (const struct rb_node *p = &items[i].node; p; p = rb_parent(p))
			d++;
		deepest = max(deepest, d);
	}
	KT_EXPECT_TRUE(t, deepest <= 2 * 12 + 1); /* log2(4097) < 12.01 */
	ktest_note("4096 sorted keys: deepest node at depth %u", deepest);
	host_free(items);
}

static const struct ktest_case rbtree_cases[] = {
	KTEST_CASE(rbtree_empty),
	KTEST_CASE(rbtree_sorted_and_reversed),
	KTEST_CASE(rbtree_equal_keys_keep_order),
	KTEST_CASE(rbtree_random_operations),
	KTEST_CASE(rbtree_height_bounded),
};

KTEST_SUITE(rbtree, rbtree_cases);
