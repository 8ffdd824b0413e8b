/* lib/rbtree.c - red-black tree rebalancing; see rbtree.h.
 *
 * The rules (Cormen et al., "Introduction to Algorithms", chapter 13):
 *   1. every node is red or black; the root is black;
 *   2. a red node has no red child;
 *   3. every path from a node down to a missing child (NULL) passes the
 *      same number of black nodes (its black height).
 * Rule 3 bounds the longest path at twice the shortest. An insert links a
 * red node (rule 3 holds) and repairs rule 2 going up; an erase that takes
 * a black node out of a path repairs rule 3 going up. Both need at most
 * three rotations; the colour changes may go up to the root.
 */
#include "rbtree.h"

#define RB_RED	 0UL
#define RB_BLACK 1UL

static inline bool is_black(const struct rb_node *n)
{
	return !n || (n->parent_color & RB_BLACK); /* a missing child is black */
}

static inline bool is_red(const struct rb_node *n)
{
	return !is_black(n);
}

static inline void set_black(struct rb_node *n)
{
	n->parent_color |= RB_BLACK;
}

static inline void set_red(struct rb_node *n)
{
	n->parent_color &= ~RB_BLACK;
}

static inline void set_parent(struct rb_node *n, struct rb_node *p)
{
	n->parent_color = (unsigned long)p | (n->parent_color & RB_BLACK);
}

static inline void set_parent_color(struct rb_node *n, struct rb_node *p, unsigned long color)
{
	n->parent_color = (unsigned long)p | color;
}

/* Make new take old's place under old's parent (or as the root). */
static void replace_child(struct rb_node *old, struct rb_node *new, struct rb_node *parent,
			  struct rb_root *root)
{
	if (!parent)
		root->node = new;
	else if (parent->left == old)
		parent->left = new;
	else
		parent->right = new;
}

/*      x                y
 *     / \              / \
 *    a   y     ->     x   c
 *       / \          / \
 *      b   c        a   b      (colours unchanged) */
static void rotate_left(struct rb_node *x, struct rb_root *root)
{
	struct rb_node *y = x->right, *p = rb_parent(x);

	x->right = y->left;
	if (y->left)
		set_parent(y->left, x);
	y->left = x;
	set_parent(y, p);
	replace_child(x, y, p, root);
	set_parent(x, y);
}

/* The mirror image of rotate_left. */
static void rotate_right(struct rb_node *x, struct rb_root *root)
{
	struct rb_node *y = x->left, *p = rb_parent(x);

	x->left = y->right;
	if (y->right)
		set_parent(y->right, x);
	y->right = x;
	set_parent(y, p);
	replace_child(x, y, p, root);
	set_parent(x, y);
}

void rb_insert_color(struct rb_node *node, struct rb_root *root)
{
	struct rb_node *parent;

	/* node is red; the only broken rule can be node and its parent both
	 * red. The parent is then not the root, so a grandparent exists. */
	while ((parent = rb_parent(node)) && is_red(parent)) {
		struct rb_node *gparent = rb_parent(parent);

		if (parent == gparent->left) {
			struct rb_node *uncle = gparent->right;

			if (is_red(uncle)) {
				/* Push the grandparent's black down a level:
				 * black heights unchanged, the problem moves up. */
				set_black(parent);
				set_black(uncle);
				set_red(gparent);
				node = gparent;
				continue;
			}
			if (node == parent->right) {
				/* Turn the inner case into the outer one. */
				rotate_left(parent, root);
				node = parent;
				parent = rb_parent(node);
			}
			set_black(parent);
			set_red(gparent);
			rotate_right(gparent, root);
		} else {
			struct rb_node *uncle = gparent->left;

			if (is_red(uncle)) {
				set_black(parent);
				set_black(uncle);
				set_red(gparent);
				node = gparent;
				continue;
			}
			if (node == parent->left) {
				rotate_right(parent, root);
				node = parent;
				parent = rb_parent(node);
			}
			set_black(parent);
			set_red(gparent);
			rotate_left(gparent, root);
		}
	}
	set_black(root->node);
}

/* A path through child (perhaps NULL), a child of parent, lost a black
 * node: give it one back, or take one from every other path. */
static void erase_fixup(struct rb_node *child, struct rb_node *parent, struct rb_root *root)
{
	while (child != root->node && is_black(child)) {
		if (child == parent->left) {
			/* The sibling's side is a black node taller: it exists. */
			struct rb_node *sibling = parent->right;

			if (is_red(sibling)) {
				/* Make the sibling black (its children are). */
				set_black(sibling);
				set_red(parent);
				rotate_left(parent, root);
				sibling = parent->right;
			}
			if (is_black(sibling->left) && is_black(sibling->right)) {
				/* Shorten the sibling's side too; the parent's
				 * whole subtree is now short: go up. */
				set_red(sibling);
				child = parent;
				parent = rb_parent(child);
				continue;
			}
			if (is_black(sibling->right)) {
				set_black(sibling->left);
				set_red(sibling);
				rotate_right(sibling, root);
				sibling = parent->right;
			}
			/* The sibling's red outer child pays for our side. */
			sibling->parent_color = (sibling->parent_color & ~RB_BLACK) |
						(parent->parent_color & RB_BLACK);
			set_black(parent);
			set_black(sibling->right);
			rotate_left(parent, root);
			child = root->node;
			break;
		} else {
			struct rb_node *sibling = parent->left;

			if (is_red(sibling)) {
				set_black(sibling);
				set_red(parent);
				rotate_right(parent, root);
				sibling = parent->left;
			}
			if (is_black(sibling->left) && is_black(sibling->right)) {
				set_red(sibling);
				child = parent;
				parent = rb_parent(child);
				continue;
			}
			if (is_black(sibling->left)) {
				set_black(sibling->right);
				set_red(sibling);
				rotate_left(sibling, root);
				sibling = parent->left;
			}
			sibling->parent_color = (sibling->parent_color & ~RB_BLACK) |
						(parent->parent_color & RB_BLACK);
			set_black(parent);
			set_black(sibling->left);
			rotate_right(parent, root);
			child = root->node;
			break;
		}
	}
	if (child)
		set_black(child);
}

void rb_erase(struct rb_node *node, struct rb_root *root)
{
	struct rb_node *child, *parent;
	unsigned long removed_color;

	if (!node->left || !node->right) {
		/* At most one child: it takes node's place. */
		child = node->left ? node->left : node->right;
		parent = rb_parent(node);
		removed_color = node->parent_color & RB_BLACK;
		replace_child(node, child, parent, root);
		if (child)
			set_parent(child, parent);
	} else {
		/* Two children: node's successor (the leftmost of its right
		 * subtree, which has no left child) takes node's place and
		 * colour; the successor's old place is what loses a node. */
		struct rb_node *succ = node->right;

		while (succ->left)
			succ = succ->left;
		removed_color = succ->parent_color & RB_BLACK;
		child = succ->right;
		if (rb_parent(succ) == node) {
			parent = succ;
		} else {
			parent = rb_parent(succ);
			parent->left = child;
			if (child)
				set_parent(child, parent);
			succ->right = node->right;
			set_parent(node->right, succ);
		}
		succ->left = node->left;
		set_parent(node->left, succ);
		replace_child(node, succ, rb_parent(node), root);
		set_parent_color(succ, rb_parent(node), node->parent_color & RB_BLACK);
	}
	if (removed_color == RB_BLACK)
		erase_fixup(child, parent, root);
}

struct rb_node *rb_first(const struct rb_root *root)
{
	struct rb_node *n = root->node;

	if (!n)
		return NULL;
	while (n->left)
		n = n->left;
	return n;
}

struct rb_node *rb_last(const struct rb_root *root)
{
	struct rb_node *n = root->node;

	if (!n)
		return NULL;
	while (n->right)
		n = n->right;
	return n;
}

struct rb_node *rb_next(const struct rb_node *node)
{
	struct rb_node *parent;

	if (node->right) {
		node = node->right;
		while (node->left)
			node = node->left;
		return (struct rb_node *)node;
	}
	/* Up until we come from a left child: that parent is next. */
	while ((parent = rb_parent(node)) && node == parent->right)
		node = parent;
	return parent;
}

struct rb_node *rb_prev(const struct rb_node *node)
{
	struct rb_node *parent;

	if (node->left) {
		node = node->left;
		while (node->right)
			node = node->right;
		return (struct rb_node *)node;
	}
	while ((parent = rb_parent(node)) && node == parent->left)
		node = parent;
	return parent;
}
