// Groups of charts that find each other on one page: the charts are separate component
// instances, so the behaviours whose charts act together (link.js, drag.js) meet in this one
// registry on window (window.__atlasGroups: kind -> group name -> {members, shared}).
//
// A member is a behaviour's state (chart.js's ctx.state) with its chart's host: kind is the
// behaviour's name, so that each behaviour's groups are its own. A member is in at most one group
// of a kind; one whose host has left the document is dropped when the members are read.
// tests/test_groups_js.py runs this in node.

const KEY = "__atlasGroups";

function kinds() {
  return (globalThis[KEY] ||= new Map());
}

function groupsOf(kind) {
  const all = kinds();
  if (!all.has(kind)) all.set(kind, new Map());
  return all.get(kind);
}

function record(kind, group) {
  const groups = groupsOf(kind);
  if (!groups.has(group)) groups.set(group, { members: new Set(), shared: {} });
  return groups.get(group);
}

// Put member in the group (last of its members), out of any other group of the kind.
export function join(kind, group, member) {
  for (const [name, g] of groupsOf(kind)) {
    if (name !== group && g.members.delete(member) && !g.members.size) groupsOf(kind).delete(name);
  }
  const { members: joined } = record(kind, group);
  joined.delete(member); // joining again: last (its group, and what is shared there, are kept)
  joined.add(member);
}

// Take member out of its group of the kind; returns that group's name (null: it was in none). A
// group left empty is forgotten, with what its members shared.
export function leave(kind, member) {
  for (const [name, g] of groupsOf(kind)) {
    if (!g.members.delete(member)) continue;
    if (!g.members.size) groupsOf(kind).delete(name);
    return name;
  }
  return null;
}

// The group's members still on the page, in the order they joined (the others are dropped, and
// a group left empty is forgotten).
export function members(kind, group) {
  const g = groupsOf(kind).get(group);
  if (!g) return [];
  for (const m of g.members) if (!(m.host && m.host.isConnected)) g.members.delete(m);
  if (!g.members.size) groupsOf(kind).delete(group);
  return [...g.members];
}

// What the group's members share (an object kept while the group has members: link.js's focus).
export function shared(kind, group) {
  return record(kind, group).shared;
}
