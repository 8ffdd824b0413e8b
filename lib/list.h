/* lib/list.h - intrusive circular doubly linked lists (Linux style).
 *
 * Embed a struct list_head in your object and link it into a list whose
 * head is a bare struct list_head; list_entry()/container_of() get back from
 * the node to the object. An empty list's head points at itself.
 *
 * Init:     LIST_HEAD(name), LIST_HEAD_INIT(name), INIT_LIST_HEAD(head)
 * Insert:   list_add (after head = push front), list_add_tail (push back)
 * Remove:   list_del (poisons the node), list_del_init (node becomes empty)
 * Move:     list_replace, list_move, list_move_tail,
 *           list_splice_init, list_splice_tail_init
 * Query:    list_empty, list_is_singular, list_is_head, list_count_nodes
 * Entries:  list_entry, list_first_entry, list_last_entry,
 *           list_first_entry_or_null, list_next_entry, list_prev_entry
 * Walk:     list_for_each, list_for_each_safe, list_for_each_entry,
 *           list_for_each_entry_safe, list_for_each_entry_reverse
 *
 * The _safe walkers allow deleting the current node. Nothing here locks.
 *
 * Checked, like Linux's CONFIG_DEBUG_LIST: before linking or unlinking,
 * each insertion and deletion checks that the neighbours point at each
 * other (and at the node). A list that fails is corrupt: an object freed
 * or re-initialised while linked, a node added twice, an update without
 * the lock. list_corruption() (the kernel's panics, naming the nodes)
 * stops there, at the first bad operation, not at some later victim.
 */
#ifndef LIB_LIST_H
#define LIB_LIST_H

#include "compiler.h"
#include "types.h"

struct list_head {
	struct list_head *next, *prev;
};

/*
 * list_del() leaves these non-canonical addresses in the node so a use after
 * deletion faults (#GP) at once instead of silently walking a stale list.
 */
#define LIST_POISON1 ((struct list_head *)0xdead000000000100UL)
#define LIST_POISON2 ((struct list_head *)0xdead000000000122UL)

#define LIST_HEAD_INIT(name)                                                                       \
	{                                                                                          \
		&(name), &(name)                                                                   \
	}
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)

static inline void INIT_LIST_HEAD(struct list_head *head)
{
	WRITE_ONCE(head->next, head);
	head->prev = head;
}

__noreturn void list_corruption(const char *op, const struct list_head *node,
				const struct list_head *prev, const struct list_head *next);

/* Link node between two known-consecutive nodes. */
static inline void __list_add(struct list_head *node, struct list_head *prev,
			      struct list_head *next)
{
#ifndef CONFIG_LEAN /* LEAN=1 (Makefile): no checks */
	if (unlikely(next->prev != prev || prev->next != next || node == prev || node == next))
		list_corruption("list_add", node, prev, next);
#endif
	next->prev = node;
	node->next = next;
	node->prev = prev;
	WRITE_ONCE(prev->next, node);
}

/* Insert node right after head (stack push). */
static inline void list_add(struct list_head *node, struct list_head *head)
{
	__list_add(node, head, head->next);
}

/* Insert node right before head, i.e. at the end (queue push). */
static inline void list_add_tail(struct list_head *node, struct list_head *head)
{
	__list_add(node, head->prev, head);
}

/* Unlink whatever lies between prev and next. */
static inline void __list_del(struct list_head *prev, struct list_head *next)
{
	next->prev = prev;
	WRITE_ONCE(prev->next, next);
}

static inline void __list_del_entry(struct list_head *node)
{
	struct list_head *prev = node->prev, *next = node->next;

#ifndef CONFIG_LEAN
	if (unlikely(prev->next != node || next->prev != node))
		list_corruption("list_del", node, prev, next);
#endif
	__list_del(prev, next);
}

static inline void list_del(struct list_head *node)
{
	__list_del_entry(node);
	node->next = LIST_POISON1;
	node->prev = LIST_POISON2;
}

static inline void list_del_init(struct list_head *node)
{
	__list_del_entry(node);
	INIT_LIST_HEAD(node);
}

/* Put new in old's place. old is left dangling (not re-initialised). */
static inline void list_replace(struct list_head *old, struct list_head *new)
{
	new->next = old->next;
	new->next->prev = new;
	new->prev = old->prev;
	new->prev->next = new;
}

/* Remove node from its list and push it onto the front of head. */
static inline void list_move(struct list_head *node, struct list_head *head)
{
	__list_del_entry(node);
	list_add(node, head);
}

/* Remove node from its list and append it to head. */
static inline void list_move_tail(struct list_head *node, struct list_head *head)
{
	__list_del_entry(node);
	list_add_tail(node, head);
}

static inline bool list_is_head(const struct list_head *node, const struct list_head *head)
{
	return node == head;
}

static inline bool list_is_last(const struct list_head *node, const struct list_head *head)
{
	return node->next == head;
}

static inline bool list_empty(const struct list_head *head)
{
	return READ_ONCE(head->next) == head;
}

static inline bool list_is_singular(const struct list_head *head)
{
	return !list_empty(head) && head->next == head->prev;
}

/* Link the nodes of non-empty list between prev and next. */
static inline void __list_splice(const struct list_head *list, struct list_head *prev,
				 struct list_head *next)
{
	struct list_head *first = list->next;
	struct list_head *last = list->prev;

	first->prev = prev;
	prev->next = first;
	last->next = next;
	next->prev = last;
}

/* Move all of list's nodes to the front of head; list becomes empty. */
static inline void list_splice_init(struct list_head *list, struct list_head *head)
{
	if (!list_empty(list)) {
		__list_splice(list, head, head->next);
		INIT_LIST_HEAD(list);
	}
}

/* Move all of list's nodes to the end of head; list becomes empty. */
static inline void list_splice_tail_init(struct list_head *list, struct list_head *head)
{
	if (!list_empty(list)) {
		__list_splice(list, head->prev, head);
		INIT_LIST_HEAD(list);
	}
}

/* Number of nodes, not counting head. O(n). */
static inline size_t list_count_nodes(const struct list_head *head)
{
	const struct list_head *pos;
	size_t count = 0;

	for (pos = head->next; pos != head; pos = pos->next)
		count++;
	return count;
}

#define list_entry(ptr, type, member) container_of(ptr, type, member)

/* The list must not be empty. */
#define list_first_entry(head, type, member) list_entry((head)->next, type, member)

/* The list must not be empty. */
#define list_last_entry(head, type, member) list_entry((head)->prev, type, member)

#define list_first_entry_or_null(head, type, member)                                               \
	({                                                                                         \
		struct list_head *__head = (head);                                                 \
		struct list_head *__first = READ_ONCE(__head->next);                               \
		__first != __head ? list_entry(__first, type, member) : NULL;                      \
	})

#define list_next_entry(pos, member) list_entry((pos)->member.next, __typeof__(*(pos)), member)

#define list_prev_entry(pos, member) list_entry((pos)->member.prev, __typeof__(*(pos)), member)

#define list_entry_is_head(pos, head, member) (&(pos)->member == (head))

#define list_for_each(pos, head)                                                                   \
	for ((pos) = (head)->next; !list_is_head(pos, head); (pos) = (pos)->next)

/* Safe against removal of pos: n caches the next node. */
#define list_for_each_safe(pos, n, head)                                                           \
	for ((pos) = (head)->next, (n) = (pos)->next; !list_is_head(pos, head);                    \
	     (pos) = (n), (n) = (pos)->next)

#define list_for_each_entry(pos, head, member)                                                     \
	for ((pos) = list_first_entry(head, __typeof__(*(pos)), member);                           \
	     !list_entry_is_head(pos, head, member); (pos) = list_next_entry(pos, member))

#define list_for_each_entry_reverse(pos, head, member)                                             \
	for ((pos) = list_last_entry(head, __typeof__(*(pos)), member);                            \
	     !list_entry_is_head(pos, head, member); (pos) = list_prev_entry(pos, member))

/* Safe against removal of pos: n caches the next entry. */
#define list_for_each_entry_safe(pos, n, head, member)                                             \
	for ((pos) = list_first_entry(head, __typeof__(*(pos)), member),                           \
	    (n) = list_next_entry(pos, member);                                                    \
	     !list_entry_is_head(pos, head, member);                                               \
	     (pos) = (n), (n) = list_next_entry(n, member))

#endif
