// Arithmetic expressions with precedence by left recursion, written for Bonsai's importer
// tests: a parser grammar's usual shape, with alternative labels and associativity options.
grammar Arith;

program : ( statement ';' )+ ;

statement
    : ID '=' expr                     # Assign
    | expr                            # Print
    ;

expr
    : <assoc=right> expr '^' expr     # Power
    | '-' expr                        # Negate
    | expr op=( '*' | '/' | '%' ) expr  # Product
    | expr op=( '+' | '-' ) expr      # Sum
    | ID '(' ( expr ( ',' expr )* )? ')'  # Call
    | '(' expr ')'                    # Parens
    | NUMBER                          # Number
    | ID                              # Variable
    ;

ID     : LETTER ( LETTER | DIGIT )* ;
NUMBER : DIGIT+ ( '.' DIGIT+ )? ;
fragment LETTER : [a-zA-Z_] ;
fragment DIGIT  : [0-9] ;

COMMENT : '#' ~[\r\n]* -> channel(HIDDEN) ;
WS      : [ \t\r\n]+ -> channel(HIDDEN) ;
