#pragma once
int once_decl;
