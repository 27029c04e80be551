int local_decl;
