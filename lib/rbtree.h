/* lib/rbtree.h - intrusive red-black trees.
 *
 * A red-black tree keeps its nodes in key order with every path from the
 * root to a leaf within a factor of two of every other, so an insert, an
 * erase or a search is O(log n) whatever the order of the keys. The nodes
 * live inside the caller's structures (like list_head): the tree allocates
 * nothing, so it can be used with interrupts off and locks held.
 *
 * The tree knows no keys. To insert, the caller walks down from the root
 * comparing its own keys, then links the node where the walk ended and
 * lets the tree rebalance:
 *
 *   struct rb_node **link = &root->node, *parent = NULL;
 *   while (*link) {
 *           parent = *link;
 *           link = key < key_of(parent) ? &parent->left : &parent->right;
 *   }
 *   rb_link_node(node, parent, link);
 *   rb_insert_color(node, root);
 *
 * Interface:
 *   rb_link_node(node, parent, link)   put node where a search ended
 *   rb_insert_color(node, root)        rebalance after rb_link_node
 *   rb_erase(node, root)               unlink and rebalance
 *   rb_first(root), rb_last(root)      the smallest, the largest (or NULL)
 *   rb_next(node), rb_prev(node)       in key order (or NULL)
 *   RB_CLEAR_NODE(node), RB_EMPTY_NODE(node)   mark / test "in no tree"
 *   rb_entry(node, type, member)       the structure holding node
 *
 * The cached variant keeps the leftmost node, so the smallest key is one
 * load (what a timer queue asks for at every interrupt):
 *   rb_insert_color_cached(node, root, leftmost)  leftmost: the search
 *                                      never went right
 *   rb_erase_cached(node, root)
 *   rb_first_cached(root)
 *
 * Rules: a node is in at most one tree; the caller serialises all access
 * to a tree (a lock, or one CPU with interrupts off). rb_erase() leaves
 * the node's links stale: RB_CLEAR_NODE() it if "in no tree" is tested.
 */
#ifndef LIB_RBTREE_H
#define LIB_RBTREE_H

#include "compiler.h"
#include "types.h"

struct rb_node {
	unsigned long parent_color; /* the parent's address, the colour in bit 0 */
	struct rb_node *left, *right;
} __aligned(sizeof(long));

struct rb_root {
	struct rb_node *node;
};

struct rb_root_cached {
	struct rb_root root;
	struct rb_node *leftmost;
};

#define RB_ROOT	       ((struct rb_root){ NULL })
#define RB_ROOT_CACHED ((struct rb_root_cached){ { NULL }, NULL })

#define rb_entry(ptr, type, member) container_of(ptr, type, member)
#define rb_parent(n)		    ((struct rb_node *)((n)->parent_color & ~3UL))
/* A node in no tree points at itself. */
#define RB_EMPTY_NODE(n) ((n)->parent_color == (unsigned long)(n))
#define RB_CLEAR_NODE(n) ((n)->parent_color = (unsigned long)(n))

static inline void rb_link_node(struct rb_node *node, struct rb_node *parent, struct rb_node **link)
{
	node->parent_color = (unsigned long)parent; /* red: bit 0 clear */
	node->left = node->right = NULL;
	*link = node;
}

void rb_insert_color(struct rb_node *node, struct rb_root *root);
void rb_erase(struct rb_node *node, struct rb_root *root);
struct rb_node *rb_first(const struct rb_root *root);
struct rb_node *rb_last(const struct rb_root *root);
struct rb_node *rb_next(const struct rb_node *node);
struct rb_node *rb_prev(const struct rb_node *node);

static inline void rb_insert_color_cached(struct rb_node *node, struct rb_root_cached *root,
					  bool leftmost)
{
	if (leftmost)
		root->leftmost = node;
	rb_insert_color(node, &root->root);
}

static inline void rb_erase_cached(struct rb_node *node, struct rb_root_cached *root)
{
	if (root->leftmost == node)
		root->leftmost = rb_next(node);
	rb_erase(node, &root->root);
}

static inline struct rb_node *rb_first_cached(const struct rb_root_cached *root)
{
	return root->leftmost;
}

#endif
