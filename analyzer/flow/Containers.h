// What the device flow knows of a container's elements: tuples by position, lists by the join
// of everything put in them, dicts by literal key. Value::Parts indexes one flow's table of
// these, interned so that equal contents have one index (a loop that appends the same kind of
// element every round settles; two paths that built the same list agree).
#pragma once

#include "flow/Value.h"

#include <deque>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace torchlint::flow {

/// The elements of a container, read by the kind of the value that holds it:
/// - Tuple: Elems by position;
/// - List (also a generator, `zip`, `enumerate`): Elems[0] is every element; none: empty;
/// - Dict: Keys[i] names Elems[i]; with AnyKey, no keys and Elems[0] is every value (a
///   comprehension, a key that is not a literal string).
struct Contents {
  std::vector<Value> Elems;
  std::vector<std::string_view> Keys; // views into the file's text
  bool AnyKey = false;
  bool operator==(const Contents &) const = default;
};

class ContainerTable {
public:
  ContainerTable();
  /// The index of \p C (the same for equal contents; never 0).
  uint32_t intern(Contents C);
  const Contents &at(uint32_t Index) const { return Table[Index]; }
  /// Containers of kind \p K (Tuple, List or Dict) whose indices are \p A and \p B joined:
  /// position by position, element by element, key by key; 0 where their shapes differ.
  uint32_t join(ValueKind K, uint32_t A, uint32_t B);
  /// A list holding every element of the tuples or lists \p A and \p B; 0 where that is unknown.
  uint32_t joinAsList(uint32_t A, uint32_t B);

private:
  std::deque<Contents> Table;
  std::unordered_map<uint64_t, std::vector<uint32_t>> ByHash;
};

/// The table join() reads while a flow runs on this thread: join() is a free function of
/// values (the state's join, the answers' join across loop rounds), and a container's join
/// needs its elements. Set for the extent of one flow's run; flows on one thread nest (a
/// project module's summary built while a file is linted), so the guard restores the outer.
class ActiveContainers {
public:
  explicit ActiveContainers(ContainerTable &T);
  ~ActiveContainers();
  ActiveContainers(const ActiveContainers &) = delete;
  ActiveContainers &operator=(const ActiveContainers &) = delete;
  static ContainerTable *current();

private:
  ContainerTable *Saved;
};

/// A value of container kind \p K (Tuple, List, Dict)?
inline bool isContainer(ValueKind K) { return K == ValueKind::Tuple || K == ValueKind::List || K == ValueKind::Dict; }

} // namespace torchlint::flow
