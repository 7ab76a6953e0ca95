// Tiny: a small imperative language (variables, arithmetic, conditions, loops, procedures),
// written for Bonsai's importer tests. Comments go to the hidden channel; whitespace is
// skipped.
grammar Tiny;

program   : procedure* block EOF ;
procedure : 'proc' name=IDENT '(' params? ')' block ;
params    : IDENT ( ',' IDENT )* ;
block     : '{' statement* '}' ;

statement
    : 'var' IDENT ( '=' expr )? ';'
    | IDENT '=' expr ';'
    | 'if' '(' condition ')' block ( 'else' ( block | statement ) )?
    | 'while' '(' condition ')' block
    | 'call' IDENT '(' ( expr ( ',' expr )* )? ')' ';'
    | 'print' ( expr | STRING ) ';'
    | 'return' ';'
    | block
    ;

condition
    : 'not' condition
    | condition ( 'and' | 'or' ) condition
    | expr ( '==' | '!=' | '<' | '<=' | '>' | '>=' ) expr
    ;

expr
    : expr ( '*' | '/' ) expr
    | expr ( '+' | '-' ) expr
    | '-' expr
    | '(' expr ')'
    | IDENT
    | NUMBER
    ;

IDENT  : [a-z] [a-z0-9_]* ;
NUMBER : '0' | [1-9] [0-9]* ;
STRING : '"' ( ~["\\\r\n] | '\\' ["\\n] )* '"' ;

LINE_COMMENT  : '//' ~[\r\n]* -> channel(HIDDEN) ;
BLOCK_COMMENT : '/*' .*? '*/' -> channel(HIDDEN) ;
WS            : [ \t\r\n]+ -> skip ;
