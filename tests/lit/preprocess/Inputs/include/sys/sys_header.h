// A header found through -I.
#pragma once
int sys_decl;
