// JSON (RFC 8259) as an ANTLR4 combined grammar, written for Bonsai's importer tests.
grammar Json;

document : value EOF ;

value
    : object                          # ObjectValue
    | array                           # ArrayValue
    | STRING                          # StringValue
    | NUMBER                          # NumberValue
    | 'true'                          # TrueValue
    | 'false'                         # FalseValue
    | 'null'                          # NullValue
    ;

object : '{' ( member ( ',' member )* )? '}' ;
member : key=STRING ':' value ;
array  : '[' ( items+=value ( ',' items+=value )* )? ']' ;

STRING : '"' ( ESCAPE | SAFE )* '"' ;
fragment ESCAPE : '\\' ( ["\\/bfnrt] | UNICODE ) ;
fragment UNICODE : 'u' HEX HEX HEX HEX ;
fragment HEX : [0-9a-fA-F] ;
fragment SAFE : ~ ["\\\u0000-\u001F] ;

NUMBER : '-'? INT ( '.' DIGIT+ )? EXPONENT? ;
fragment INT : '0' | [1-9] DIGIT* ;
fragment DIGIT : '0'..'9' ;
fragment EXPONENT : [eE] [+\-]? DIGIT+ ;

WS : [ \t\r\n]+ -> skip ;
