#include "protocols/wire/chat.h"
