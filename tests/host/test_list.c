/* tests/host/test_list.c - tests for lib/list.h.
 *
 * Lists are checked against an expected sequence of item ids, walking both
 * directions so a broken prev link is caught as well as a broken next.
 */
#include "ktest_host.h"
#include "lib/list.h"

struct item {
	int id;
	struct list_head node;
};

/* Check head holds exactly ids[0..n) in order, forwards and backwards. */
static bool list_matches(const struct list_head *head, const int *ids, size_t n)
{
	const struct list_head *pos;
	size_t i = 0;

	for (pos = head->next; pos != head; pos = pos->next) {
		if (i >= n || list_entry(pos, struct item, node)->id != ids[i])
			return false;
		if (pos->next->prev != pos)
			return false;
		i++;
	}
	if (i != n)
		return false;
	for (pos = head->prev; pos != head; pos = pos->prev) {
		if (list_entry(pos, struct item, node)->id != ids[--i])
			return false;
	}
	return i == 0;
}

#define EXPECT_LIST(t, head, ...)                                                                  \
	do {                                                                                       \
		static const int __ids[] = { __VA_ARGS__ };                                        \
		KT_EXPECT_TRUE(t, list_matches(head, __ids, ARRAY_SIZE(__ids)));                   \
	} while (0)

static void init_items(struct item *items, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		items[i].id = (int)i;
		INIT_LIST_HEAD(&items[i].node);
	}
}

static void list_init_empty(struct ktest *t)
{
	LIST_HEAD(static_head);
	struct list_head dynamic;

	INIT_LIST_HEAD(&dynamic);
	KT_EXPECT_TRUE(t, list_empty(&static_head));
	KT_EXPECT_TRUE(t, list_empty(&dynamic));
	KT_EXPECT_TRUE(t, static_head.next == &static_head);
	KT_EXPECT_TRUE(t, static_head.prev == &static_head);
	KT_EXPECT_TRUE(t, !list_is_singular(&dynamic));
	KT_EXPECT_EQ(t, list_count_nodes(&dynamic), 0);
	KT_EXPECT_TRUE(t, list_first_entry_or_null(&dynamic, struct item, node) == NULL);
}

static void list_add_and_tail(struct ktest *t)
{
	struct item items[4];
	LIST_HEAD(head);

	init_items(items, ARRAY_SIZE(items));
	list_add(&items[1].node, &head);
	KT_EXPECT_TRUE(t, list_is_singular(&head));
	list_add(&items[0].node, &head);
	list_add_tail(&items[2].node, &head);
	list_add_tail(&items[3].node, &head);
	EXPECT_LIST(t, &head, 0, 1, 2, 3);
	KT_EXPECT_TRUE(t, !list_empty(&head));
	KT_EXPECT_TRUE(t, !list_is_singular(&head));
	KT_EXPECT_EQ(t, list_count_nodes(&head), 4);
	KT_EXPECT_TRUE(t, list_is_last(&items[3].node, &head));
	KT_EXPECT_TRUE(t, !list_is_last(&items[2].node, &head));
}

static void list_del_poisons(struct ktest *t)
{
	struct item items[3];
	LIST_HEAD(head);

	init_items(items, ARRAY_SIZE(items));
	list_add_tail(&items[0].node, &head);
	list_add_tail(&items[1].node, &head);
	list_add_tail(&items[2].node, &head);
	list_del(&items[1].node);
	EXPECT_LIST(t, &head, 0, 2);
	KT_EXPECT_TRUE(t, items[1].node.next == LIST_POISON1);
	KT_EXPECT_TRUE(t, items[1].node.prev == LIST_POISON2);
	KT_EXPECT_EQ(t, (u64)(uintptr_t)LIST_POISON1, 0xdead000000000100ULL);
	KT_EXPECT_EQ(t, (u64)(uintptr_t)LIST_POISON2, 0xdead000000000122ULL);
	list_del(&items[0].node);
	list_del(&items[2].node);
	KT_EXPECT_TRUE(t, list_empty(&head));
}

static void list_del_init_reusable(struct ktest *t)
{
	struct item items[2];
	LIST_HEAD(head);

	init_items(items, ARRAY_SIZE(items));
	list_add_tail(&items[0].node, &head);
	list_add_tail(&items[1].node, &head);
	list_del_init(&items[0].node);
	KT_EXPECT_TRUE(t, list_empty(&items[0].node));
	EXPECT_LIST(t, &head, 1);
	/* A del_init'ed node may be deleted again harmlessly. */
	list_del_init(&items[0].node);
	KT_EXPECT_TRUE(t, list_empty(&items[0].node));
	list_add(&items[0].node, &head);
	EXPECT_LIST(t, &head, 0, 1);
}

static void list_replace_node(struct ktest *t)
{
	struct item items[4];
	LIST_HEAD(head);

	init_items(items, ARRAY_SIZE(items));
	list_add_tail(&items[0].node, &head);
	list_add_tail(&items[1].node, &head);
	list_add_tail(&items[2].node, &head);
	list_replace(&items[1].node, &items[3].node);
	EXPECT_LIST(t, &head, 0, 3, 2);
	/* Replacing the only node. */
	{
		LIST_HEAD(single);

		list_add(&items[1].node, &single);
		list_replace(&items[1].node, &items[1].node);
		EXPECT_LIST(t, &single, 1);
	}
}

static void list_move_between(struct ktest *t)
{
	struct item items[5];
	LIST_HEAD(a);
	LIST_HEAD(b);
	size_t i;

	init_items(items, ARRAY_SIZE(items));
	for (i = 0; i < 5; i++)
		list_add_tail(&items[i].node, &a);
	list_move(&items[2].node, &b);
	list_move(&items[4].node, &b);
	list_move_tail(&items[0].node, &b);
	EXPECT_LIST(t, &a, 1, 3);
	EXPECT_LIST(t, &b, 4, 2, 0);
	/* Moving within the same list rotates it. */
	list_move_tail(&items[4].node, &b);
	EXPECT_LIST(t, &b, 2, 0, 4);
	list_move(&items[4].node, &b);
	EXPECT_LIST(t, &b, 4, 2, 0);
}

static void list_splice_both_ends(struct ktest *t)
{
	struct item items[6];
	LIST_HEAD(a);
	LIST_HEAD(b);
	LIST_HEAD(empty);
	size_t i;

	init_items(items, ARRAY_SIZE(items));
	for (i = 0; i < 3; i++)
		list_add_tail(&items[i].node, &a);
	for (i = 3; i < 6; i++)
		list_add_tail(&items[i].node, &b);

	list_splice_init(&b, &a);
	EXPECT_LIST(t, &a, 3, 4, 5, 0, 1, 2);
	KT_EXPECT_TRUE(t, list_empty(&b));

	list_del_init(&items[4].node);
	list_add(&items[4].node, &b);
	list_splice_tail_init(&b, &a);
	EXPECT_LIST(t, &a, 3, 5, 0, 1, 2, 4);
	KT_EXPECT_TRUE(t, list_empty(&b));

	/* Splicing an empty list changes nothing. */
	list_splice_init(&empty, &a);
	list_splice_tail_init(&empty, &a);
	EXPECT_LIST(t, &a, 3, 5, 0, 1, 2, 4);
	KT_EXPECT_TRUE(t, list_empty(&empty));

	/* Into an empty list. */
	list_splice_tail_init(&a, &b);
	EXPECT_LIST(t, &b, 3, 5, 0, 1, 2, 4);
	KT_EXPECT_TRUE(t, list_empty(&a));
}

static void list_entry_accessors(struct ktest *t)
{
	struct item items[3];
	struct item *it;
	LIST_HEAD(head);

	init_items(items, ARRAY_SIZE(items));
	list_add_tail(&items[0].node, &head);
	list_add_tail(&items[1].node, &head);
	list_add_tail(&items[2].node, &head);
	KT_EXPECT_TRUE(t, list_entry(&items[1].node, struct item, node) == &items[1]);
	KT_EXPECT_TRUE(t, list_first_entry(&head, struct item, node) == &items[0]);
	KT_EXPECT_TRUE(t, list_last_entry(&head, struct item, node) == &items[2]);
	KT_EXPECT_TRUE(t, list_first_entry_or_null(&head, struct item, node) == &items[0]);
	it = list_next_entry(&items[0], node);
	KT_EXPECT_TRUE(t, it == &items[1]);
	KT_EXPECT_TRUE(t, list_prev_entry(it, node) == &items[0]);
}

static void list_iterators(struct ktest *t)
{
	struct item items[6];
	struct list_head *pos, *tmp;
	struct item *it, *next;
	LIST_HEAD(head);
	int expect;
	size_t i;

	init_items(items, ARRAY_SIZE(items));
	for (i = 0; i < ARRAY_SIZE(items); i++)
		list_add_tail(&items[i].node, &head);

	expect = 0;
	list_for_each(pos, &head)
		KT_EXPECT_EQ(t, list_entry(pos, struct item, node)->id, expect++);
	KT_EXPECT_EQ(t, expect, 6);

	expect = 0;
	list_for_each_entry(it, &head, node)
		KT_EXPECT_EQ(t, it->id, expect++);
	KT_EXPECT_EQ(t, expect, 6);

	expect = 5;
	list_for_each_entry_reverse(it, &head, node)
		KT_EXPECT_EQ(t, it->id, expect--);
	KT_EXPECT_EQ(t, expect, -1);

	/* Delete the odd ones while walking. */
	list_for_each_safe(pos, tmp, &head) {
		if (list_entry(pos, struct item, node)->id % 2)
			list_del(pos);
	}
	EXPECT_LIST(t, &head, 0, 2, 4);

	/* Delete everything while walking. */
	expect = 0;
	list_for_each_entry_safe(it, next, &head, node) {
		KT_EXPECT_EQ(t, it->id, expect);
		expect += 2;
		list_del(&it->node);
	}
	KT_EXPECT_TRUE(t, list_empty(&head));

	/* Iterating an empty list runs no body. */
	list_for_each_entry(it, &head, node)
		KT_EXPECT_TRUE(t, false);
	list_for_each_entry_safe(it, next, &head, node)
		KT_EXPECT_TRUE(t, false);
}

static void list_count_many(struct ktest *t)
{
	struct item items[100];
	LIST_HEAD(head);
	size_t i;

	init_items(items, ARRAY_SIZE(items));
	for (i = 0; i < ARRAY_SIZE(items); i++) {
		if (i % 2)
			list_add(&items[i].node, &head);
		else
			list_add_tail(&items[i].node, &head);
		KT_EXPECT_EQ(t, list_count_nodes(&head), i + 1);
	}
	for (i = 0; i < ARRAY_SIZE(items); i++)
		list_del(&items[i].node);
	KT_EXPECT_TRUE(t, list_empty(&head));
}

static const struct ktest_case list_cases[] = {
	KTEST_CASE(list_init_empty),	   KTEST_CASE(list_add_and_tail),
	KTEST_CASE(list_del_poisons),	   KTEST_CASE(list_del_init_reusable),
	KTEST_CASE(list_replace_node),	   KTEST_CASE(list_move_between),
	KTEST_CASE(list_splice_both_ends), KTEST_CASE(list_entry_accessors),
	KTEST_CASE(list_iterators),	   KTEST_CASE(list_count_many),
};

KTEST_SUITE(list, list_cases);
