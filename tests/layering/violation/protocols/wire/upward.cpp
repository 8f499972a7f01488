#include "harness/cli.h"
