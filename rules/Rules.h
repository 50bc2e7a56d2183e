// The registry of every rule (defined in rules/, one file each).
#pragma once

#include "lint/Rule.h"

namespace torchlint::rules {

/// Every rule, in code order. Built once; shared by all threads.
const Registry &registry();

} // namespace torchlint::rules
