int sibling_decl;
